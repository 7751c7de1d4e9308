#pragma once

#include "ui/common/Session.h"

#include <functional>
#include <optional>

namespace tollgate::ui {

/// Hits of `action` refused under a ban, per second, over the last kRefusedRateSeconds whole
/// seconds of the console's statistics (<p>:stats:<action>, lua/stats.lua's per-second
/// history; the clients that record statistics count them). A banned user's own hits are
/// counted nowhere else (a refusal writes nothing), so this is every banned user of the
/// action together. `done` gets nullopt when it could not be read, and does not run once
/// `owner` is gone. One TIME and one HMGET.
void readRefusedRate(Session* session, const QByteArray& action, QObject* owner,
                     std::function<void(std::optional<double>)> done);

inline constexpr int kRefusedRateSeconds = 10;

} // namespace tollgate::ui
