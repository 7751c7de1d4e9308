#include "tollgate/Policy.h"

namespace tollgate {

QByteArray failureModeName(FailureMode mode)
{
    switch (mode) {
    case FailureMode::Report:
        return {};
    case FailureMode::FailOpen:
        return QByteArrayLiteral("allow");
    case FailureMode::FailClosed:
        return QByteArrayLiteral("deny");
    case FailureMode::Insurance:
        return QByteArrayLiteral("insurance");
    }
    return {};
}

std::optional<FailureMode> failureModeFromName(const QByteArray& name)
{
    for (FailureMode mode : {FailureMode::Report, FailureMode::FailOpen, FailureMode::FailClosed,
                             FailureMode::Insurance})
        if (failureModeName(mode) == name)
            return mode;
    return std::nullopt;
}

bool isUnavailable(const Error& error)
{
    switch (error.kind) {
    case ErrorKind::Io:
    case ErrorKind::Timeout:
    case ErrorKind::Closed:
    case ErrorKind::Busy:
    case ErrorKind::Protocol:
        return true;
    default:
        return false;
    }
}

} // namespace tollgate
