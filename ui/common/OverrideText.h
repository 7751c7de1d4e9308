#pragma once

#include "tollgate/Overrides.h"

#include <QString>

namespace tollgate::ui {

/// How every view words an override (the user detail, the Subjects page, the audit log), so
/// one override reads the same wherever it is looked at.

/// "all actions" for "*", else the action id made safe for one line.
QString overrideScopeText(const QByteArray& action);
/// "200 per 1m, 2000 per 1h" or "unlimited (exempt)".
QString overrideWhatText(OverrideKind kind, const std::vector<WindowLimit>& windows);
/// What the user detail says after a write: "Override set: 200 per 1m on like, until
/// 2026-12-31 14:05:00." (or ", permanent.").
QString overrideSetText(const Override& stored);
/// "in 23h 59m (2026-12-31 14:05:00)" or "permanent", counted from `nowMs`.
QString overrideEndText(qint64 untilMs, qint64 nowMs);
/// Windows as the override form takes them ("1m:200,1h:2000", Policy::parseWindows' format).
QString windowsInputText(const std::vector<WindowLimit>& windows);
/// The policy's windows with every limit multiplied by `factor` (at most Policy::kMaxLimit).
std::vector<WindowLimit> scaledWindows(const std::vector<WindowLimit>& windows, qint64 factor);

} // namespace tollgate::ui
