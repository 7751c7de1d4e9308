#pragma once

#include "core/redis/Error.h"

#include <QByteArray>
#include <optional>

namespace tollgate {

/// What a hit answers when Redis cannot: unreachable, timed out, busy loading, a broken reply.
/// Chosen per policy (field `on_error`) or per caller (Limiter::setFailureMode, which wins).
enum class FailureMode
{
    Report,     // deliver the error; the caller decides (the default)
    FailOpen,   // allow the hit
    FailClosed, // deny the hit
    Insurance,  // an in-process limiter with its own, scaled limits decides (InsuranceLimiter)
};

/// Policy field / CLI spelling: "" (report), "allow", "deny", "insurance".
QByteArray failureModeName(FailureMode mode);
std::optional<FailureMode> failureModeFromName(const QByteArray& name);

/// True for the errors a failure policy stands in for: Redis is not there or not answering
/// (Io, Timeout, Closed, Busy, Protocol). Refusals and bad data (NoPerm, WrongType, invalid
/// input) are reported whatever the mode: allowing through them would hide a broken setup.
bool isUnavailable(const Error& error);

} // namespace tollgate
