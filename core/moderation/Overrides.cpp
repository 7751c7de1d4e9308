#include "tollgate/Overrides.h"

#include "core/policies/Duration.h"

#include <algorithm>

namespace tollgate {

namespace {

constexpr qint64 kMaxOverrideMs = 3'153'600'000'000; // 100 years, as the scripts' MAX_BAN_MS

Status invalid(const QString& message)
{
    return Error{ErrorKind::InvalidInput, message};
}

} // namespace

QString overrideKindName(OverrideKind kind)
{
    return kind == OverrideKind::Limit ? QStringLiteral("limit") : QStringLiteral("unlimited");
}

QString Override::describe() const
{
    if (kind == OverrideKind::Unlimited)
        return QStringLiteral("unlimited");
    Policy shape;
    shape.windows = windows;
    return shape.windowsText();
}

Status OverrideRequest::validate() const
{
    Status status = KeySchema::validateId(user, QStringLiteral("user id"));
    if (status && action != Override::kEveryAction)
        status = KeySchema::validateId(action, QStringLiteral("action"));
    if (!status)
        return status;
    if (kind == OverrideKind::Unlimited && !windows.empty())
        return invalid(QStringLiteral("an unlimited override has no windows"));
    if (kind == OverrideKind::Limit) {
        // The rules of a policy's windows (limits 1..1e9, windows 1 ms .. 1 year, 1..8, none
        // twice); the algorithm's own bounds are applied by hit.lua.
        Policy shape;
        shape.action = QByteArrayLiteral("override");
        shape.windows = windows;
        if (Status valid = shape.validate(); !valid)
            return invalid(QStringLiteral("override: ") + valid.error().message);
    }
    if (durationMs < 0 || untilMs < 0)
        return invalid(QStringLiteral("an override's duration and end must be positive"));
    const int ends = (durationMs > 0 ? 1 : 0) + (untilMs > 0 ? 1 : 0) + (permanent ? 1 : 0);
    if (ends != 1)
        return invalid(QStringLiteral("an override needs exactly one end: a duration (--for), "
                                      "an end time (--until) or --permanent"));
    if (durationMs > kMaxOverrideMs)
        return invalid(QStringLiteral("an override lasts at most 100 years (or is permanent), "
                                      "got %1")
                           .arg(formatDuration(durationMs)));
    if (actor.trimmed().isEmpty())
        return invalid(QStringLiteral("an actor is required"));
    if (reason.trimmed().isEmpty())
        return invalid(QStringLiteral("a reason is required"));
    if (reason.size() > 2000)
        return invalid(QStringLiteral("reason is longer than 2000 characters"));
    return Unit{};
}

QByteArray overrideWindowsText(const std::vector<WindowLimit>& windows)
{
    QByteArray text;
    for (const WindowLimit& w : windows) {
        if (!text.isEmpty())
            text += ',';
        text += QByteArray::number(w.windowMs) + ':' + QByteArray::number(w.limit);
    }
    return text;
}

Result<std::vector<WindowLimit>> overrideWindowsFromText(QByteArrayView text)
{
    std::vector<WindowLimit> windows;
    const auto bad = [&] {
        return Error{
            ErrorKind::Protocol,
            QStringLiteral("override windows '%1' are not <window_ms>:<limit>,...")
                .arg(QString::fromUtf8(text.first(std::min<qsizetype>(text.size(), 200))))};
    };
    for (const QByteArray& pair : text.toByteArray().split(',')) {
        const qsizetype colon = pair.indexOf(':');
        bool msOk = false, limitOk = false;
        const qint64 ms = pair.left(colon).toLongLong(&msOk);
        const qint64 limit = pair.mid(colon + 1).toLongLong(&limitOk);
        if (colon < 0 || !msOk || !limitOk || ms < 1 || limit < 1)
            return bad();
        windows.push_back({limit, ms});
    }
    if (windows.empty() || windows.size() > size_t(Policy::kMaxWindows))
        return bad();
    return windows;
}

Policy withOverrideWindows(const Policy& policy, const std::vector<WindowLimit>& windows)
{
    Policy with = policy;
    with.windows = windows;
    // A limit past what the algorithm holds counts as that maximum, as hit.lua takes it (an
    // override of every action may meet a sliding log or a token bucket).
    for (WindowLimit& w : with.windows) {
        if (with.algorithm == Algorithm::SlidingLog)
            w.limit = std::min(w.limit, Policy::kMaxSlidingLogLimit);
        if (with.algorithm == Algorithm::TokenBucket)
            w.limit = std::min(w.limit, w.windowMs * 1000);
    }
    if (with.calendarAligned && !with.validate())
        with.calendarAligned = false;
    return with;
}

Result<Override> OverrideStore::fromField(const QByteArray& user, const QByteArray& field,
                                          const QByteArray& value)
{
    // "<kind> <until_ms> <set_ms> <windows|-> <bytes of actor> <actor><reason>"
    const auto bad = [&] {
        return Error{ErrorKind::WrongType,
                     QStringLiteral("override %1 of user %2 holds '%3', not an override")
                         .arg(QString::fromUtf8(field.left(200)), QString::fromUtf8(user.left(200)),
                              QString::fromUtf8(value.left(80)))};
    };
    Override o;
    o.user = user;
    if (field == Override::kEveryAction) {
        o.action = field;
    } else {
        auto action = KeySchema::unescape(field);
        if (!action || action->isEmpty())
            return bad();
        o.action = *action;
    }
    qsizetype at = 0;
    QByteArray parts[5];
    for (QByteArray& part : parts) {
        const qsizetype space = value.indexOf(' ', at);
        if (space < 0)
            return bad();
        part = value.mid(at, space - at);
        at = space + 1;
    }
    bool untilOk = false, setOk = false, lengthOk = false;
    o.untilMs = parts[1].toLongLong(&untilOk);
    o.setMs = parts[2].toLongLong(&setOk);
    const qsizetype actorBytes = parts[4].toLongLong(&lengthOk);
    if (!untilOk || !setOk || !lengthOk || actorBytes < 0 || at + actorBytes > value.size())
        return bad();
    o.actor = QString::fromUtf8(value.mid(at, actorBytes));
    o.reason = QString::fromUtf8(value.mid(at + actorBytes));
    if (parts[0] == "unlimited" && parts[3] == "-") {
        o.kind = OverrideKind::Unlimited;
    } else if (parts[0] == "limit") {
        auto windows = overrideWindowsFromText(parts[3]);
        if (!windows)
            return bad();
        o.kind = OverrideKind::Limit;
        o.windows = std::move(*windows);
    } else {
        return bad();
    }
    return o;
}

} // namespace tollgate
