#include "core/limits/Policy.h"

#include "core/limits/Duration.h"
#include "core/limits/KeySchema.h"

#include <QStringList>
#include <set>

namespace tollgate {

namespace {

Status invalid(const QString& message)
{
    return Error{ErrorKind::InvalidInput, message};
}

Result<qint64> toNumber(const QByteArray& field, const QByteArray& value)
{
    bool ok = false;
    const qint64 number = value.toLongLong(&ok);
    if (!ok)
        return Error{ErrorKind::WrongType, QStringLiteral("policy field '%1' is not an integer: '%2'")
                                               .arg(QString::fromUtf8(field),
                                                    QString::fromUtf8(value.left(40)))};
    return number;
}

} // namespace

Status Policy::validate() const
{
    const Status id = KeySchema::validateId(action, QStringLiteral("action"));
    if (!id)
        return id;
    if (windows.empty())
        return invalid(QStringLiteral("a policy needs at least one limit and window"));
    if (windows.size() > 1 && algorithm != Algorithm::FixedWindow)
        return invalid(QStringLiteral("several windows are only supported by fixed_window"));
    if (windows.size() > 8)
        return invalid(QStringLiteral("at most 8 windows per policy"));
    std::set<qint64> seen;
    for (const WindowLimit& w : windows) {
        if (w.limit < 1 || w.limit > kMaxLimit)
            return invalid(QStringLiteral("limit must be between 1 and %1, got %2")
                               .arg(kMaxLimit)
                               .arg(w.limit));
        if (w.windowMs < 1 || w.windowMs > kMillisPerYear)
            return invalid(QStringLiteral("window must be between 1ms and 1 year, got %1 ms")
                               .arg(w.windowMs));
        if (!seen.insert(w.windowMs).second)
            return invalid(QStringLiteral("window %1 appears twice").arg(formatDuration(w.windowMs)));
        if (algorithm == Algorithm::TokenBucket && w.limit > w.windowMs * 1000)
            return invalid(QStringLiteral("token_bucket refills at most one token per microsecond: "
                                          "limit at most %1 for a %2 window")
                               .arg(w.windowMs * 1000)
                               .arg(formatDuration(w.windowMs)));
        if (algorithm == Algorithm::SlidingLog && w.limit > kMaxSlidingLogLimit)
            return invalid(QStringLiteral("sliding_log keeps one entry per hit: limit at most %1")
                               .arg(kMaxSlidingLogLimit));
    }
    if (cost < 1 || cost > kMaxLimit)
        return invalid(QStringLiteral("cost must be between 1 and %1, got %2").arg(kMaxLimit).arg(cost));
    // hit.lua compares the warn level with the first window's count.
    const qint64 firstLimit = windows.front().limit;
    if (warn < 0 || (warn > 0 && warn >= firstLimit))
        return invalid(QStringLiteral("warn level must be below the limit of the first window (%1), got %2")
                           .arg(firstLimit)
                           .arg(warn));
    if (banMs < 0 || banMs > 10 * kMillisPerYear)
        return invalid(QStringLiteral("ban duration must be between 0 and 10 years"));
    if (banMs > 0 && banUntilMidnight)
        return invalid(QStringLiteral("choose a ban duration or 'until midnight', not both"));
    if (tzOffsetMs < -14 * 3'600'000 || tzOffsetMs > 14 * 3'600'000)
        return invalid(QStringLiteral("time zone offset must be within +-14h"));
    if (message.size() > 1000)
        return invalid(QStringLiteral("deny message is longer than 1000 characters"));
    return Unit{};
}

QList<QPair<QByteArray, QByteArray>> Policy::toFields() const
{
    QByteArrayList windowList;
    for (const WindowLimit& w : windows)
        windowList << QByteArray::number(w.windowMs) + ':' + QByteArray::number(w.limit);
    QList<QPair<QByteArray, QByteArray>> fields{
        {"algorithm", algorithmName(algorithm)},
        {"windows", windowList.join(',')},
        {"cost", QByteArray::number(cost)},
        {"warn", QByteArray::number(warn)},
        {"ban_ms", QByteArray::number(banMs)},
        {"ban_until", banUntilMidnight ? QByteArray("midnight") : QByteArray()},
        {"tz_offset_ms", QByteArray::number(tzOffsetMs)},
        {"count_denied", countDenied ? "1" : "0"},
    };
    if (!message.isEmpty())
        fields.append({"message", message.toUtf8()});
    if (onError != FailureMode::Report)
        fields.append({"on_error", failureModeName(onError)});
    return fields;
}

Result<Policy> Policy::fromFields(const QByteArray& action,
                                  const QList<QPair<QByteArray, QByteArray>>& fields)
{
    Policy policy;
    policy.action = action;
    for (const auto& [field, value] : fields) {
        if (field == "algorithm") {
            auto algorithm = algorithmFromName(value);
            if (!algorithm)
                return Error{ErrorKind::WrongType,
                             QStringLiteral("unknown algorithm '%1'").arg(QString::fromUtf8(value))};
            policy.algorithm = *algorithm;
        } else if (field == "windows") {
            policy.windows.clear();
            for (const QByteArray& pair : value.split(',')) {
                const QList<QByteArray> parts = pair.split(':');
                if (parts.size() != 2)
                    return Error{ErrorKind::WrongType, QStringLiteral("malformed windows field")};
                auto window = toNumber(field, parts[0]);
                auto limit = toNumber(field, parts[1]);
                if (!window || !limit)
                    return Error{ErrorKind::WrongType, QStringLiteral("malformed windows field")};
                policy.windows.push_back({*limit, *window});
            }
        } else if (field == "message") {
            policy.message = QString::fromUtf8(value);
        } else if (field == "on_error") {
            const auto mode = failureModeFromName(value);
            if (!mode)
                return Error{ErrorKind::WrongType,
                             QStringLiteral("unknown on_error '%1' (allow, deny or insurance)")
                                 .arg(QString::fromUtf8(value.left(40)))};
            policy.onError = *mode;
        } else if (field == "ban_until") {
            policy.banUntilMidnight = value == "midnight";
        } else if (field == "updated_by") {
            policy.updatedBy = QString::fromUtf8(value);
        } else if (field == "count_denied") {
            policy.countDenied = value == "1";
        } else {
            qint64* target = nullptr;
            if (field == "cost")
                target = &policy.cost;
            else if (field == "warn")
                target = &policy.warn;
            else if (field == "ban_ms")
                target = &policy.banMs;
            else if (field == "tz_offset_ms")
                target = &policy.tzOffsetMs;
            else if (field == "revision")
                target = &policy.revision;
            else if (field == "updated_ms")
                target = &policy.updatedMs;
            if (!target)
                continue;
            auto number = toNumber(field, value);
            if (!number)
                return number.error();
            *target = *number;
        }
    }
    return policy;
}

QString Policy::windowsText() const
{
    QStringList parts;
    for (const WindowLimit& w : windows)
        parts << QStringLiteral("%1 per %2").arg(w.limit).arg(formatDuration(w.windowMs));
    return parts.join(QStringLiteral(", "));
}

Result<std::vector<WindowLimit>> Policy::parseWindows(const QString& text)
{
    std::vector<WindowLimit> windows;
    for (const QString& pair : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList parts = pair.split(QLatin1Char(':'));
        if (parts.size() != 2)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("windows are written window:limit, e.g. 1m:10,1h:100; got '") +
                             pair + QLatin1Char('\'')};
        auto window = parseDuration(parts[0]);
        if (!window)
            return window.error();
        bool ok = false;
        const qint64 limit = parts[1].trimmed().toLongLong(&ok);
        if (!ok)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("limit '%1' is not an integer").arg(parts[1])};
        windows.push_back({limit, *window});
    }
    if (windows.empty())
        return Error{ErrorKind::InvalidInput, QStringLiteral("no windows given")};
    return windows;
}

QString Policy::banText() const
{
    if (banUntilMidnight)
        return QStringLiteral("ban until midnight");
    if (banMs > 0)
        return QStringLiteral("ban ") + formatDuration(banMs);
    return {};
}

} // namespace tollgate
