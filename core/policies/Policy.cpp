#include "tollgate/Policy.h"
#include "tollgate/Version.h"

#include "core/policies/Duration.h"
#include "core/policies/ZoneOffsets.h"
#include "tollgate/KeySchema.h"

#include <QStringList>
#include <QTimeZone>
#include <algorithm>
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
        return Error{ErrorKind::WrongType,
                     QStringLiteral("policy field '%1' is not an integer: '%2'")
                         .arg(QString::fromUtf8(field), QString::fromUtf8(value.left(40)))};
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
    if (windows.size() > size_t(kMaxWindows))
        return invalid(QStringLiteral("at most %1 windows per policy").arg(kMaxWindows));
    if (calendarAligned && algorithm != Algorithm::FixedWindow)
        return invalid(QStringLiteral("calendar windows need fixed_window"));
    std::set<qint64> seen;
    for (const WindowLimit& w : windows) {
        if (w.limit < 1 || w.limit > kMaxLimit)
            return invalid(QStringLiteral("limit must be between 1 and %1, got %2")
                               .arg(kMaxLimit)
                               .arg(w.limit));
        if (w.windowMs < 1 || w.windowMs > kMillisPerYear)
            return invalid(
                QStringLiteral("window must be between 1ms and 1 year, got %1 ms").arg(w.windowMs));
        if (calendarAligned && w.windowMs != 60'000 && w.windowMs != 3'600'000 &&
            w.windowMs != kMillisPerDay && w.windowMs != 7 * kMillisPerDay)
            return invalid(QStringLiteral("calendar windows are 1m, 1h, 1d or 1w, got %1")
                               .arg(formatDuration(w.windowMs)));
        if (!seen.insert(w.windowMs).second)
            return invalid(
                QStringLiteral("window %1 appears twice").arg(formatDuration(w.windowMs)));
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
        return invalid(
            QStringLiteral("cost must be between 1 and %1, got %2").arg(kMaxLimit).arg(cost));
    // hit.lua compares the warn level with the first window's count.
    const qint64 firstLimit = windows.front().limit;
    if (warn < 0 || (warn > 0 && warn >= firstLimit))
        return invalid(
            QStringLiteral("warn level must be below the limit of the first window (%1), got %2")
                .arg(firstLimit)
                .arg(warn));
    if (banMs < 0 || banMs > 10 * kMillisPerYear)
        return invalid(QStringLiteral("ban duration must be between 0 and 10 years"));
    if (banMs > 0 && banUntilMidnight)
        return invalid(QStringLiteral("choose a ban duration or 'until midnight', not both"));
    if (!isKnownZone(timeZone))
        return invalid(
            QStringLiteral("unknown time zone '%1' (use an IANA name such as Europe/Berlin)")
                .arg(QString::fromUtf8(timeZone)));
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
        {"align", calendarAligned ? QByteArray("calendar") : QByteArray("first_hit")},
        {"tz", timeZone},
        {"count_denied", countDenied ? "1" : "0"},
    };
    // For clients without a zone database: the offsets for the next 10 years (hit.lua ARGV[8]).
    if (auto offsets = zoneOffsetsForPolicy(timeZone))
        fields.append({"tz_offsets", *offsets});
    if (!message.isEmpty())
        fields.append({"message", message.toUtf8()});
    if (onError != FailureMode::Report)
        fields.append({"on_error", failureModeName(onError)});
    // Only when set: a policy saved before shadow mode existed reads the same.
    if (shadow)
        fields.append({QByteArrayLiteral("shadow"), QByteArrayLiteral("1")});
    return fields;
}

Result<Policy> Policy::fromFields(const QByteArray& action,
                                  const QList<QPair<QByteArray, QByteArray>>& fields)
{
    Policy policy;
    policy.action = action;
    const auto hasField = [&fields](const char* name) {
        return std::any_of(fields.begin(), fields.end(),
                           [name](const auto& f) { return f.first == name; });
    };
    for (const auto& [field, value] : fields) {
        if (field == "algorithm") {
            auto algorithm = algorithmFromName(value);
            if (!algorithm)
                return Error{
                    ErrorKind::WrongType,
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
        } else if (field == "align") {
            if (value != "first_hit" && value != "calendar")
                return Error{
                    ErrorKind::WrongType,
                    QStringLiteral("unknown align '%1'").arg(QString::fromUtf8(value.left(40)))};
            policy.calendarAligned = value == "calendar";
        } else if (field == "tz") {
            policy.timeZone = value;
        } else if (field == "tz_offset_ms" && !hasField("tz")) {
            // Policies saved before time zones had names kept a fixed offset: "UTC+02:00".
            auto offset = toNumber(field, value);
            if (!offset)
                return offset.error();
            policy.timeZone = QTimeZone(int(*offset / 1000)).id();
        } else if (field == "updated_by") {
            policy.updatedBy = QString::fromUtf8(value);
        } else if (field == "contract") {
            // Written by policy_set.lua; absent in hashes saved before contracts had numbers.
            // The policy fields have not changed since contract 1: any contract up to ours reads.
            bool known = false;
            const int written = value.toInt(&known);
            if (!known || written < 1 || written > kScriptContract)
                return Error{ErrorKind::Contract,
                             QStringLiteral("it was written under script contract %1, and this "
                                            "Tollgate (%2) follows contract %3: upgrade Tollgate "
                                            "to read it (lua/README.md, \"Contract version\")")
                                 .arg(QString::fromUtf8(value.left(20)),
                                      QString::fromLatin1(kVersion))
                                 .arg(kScriptContract)};
        } else if (field == "count_denied") {
            policy.countDenied = value == "1";
        } else if (field == "shadow") {
            policy.shadow = value == "1";
        } else {
            qint64* target = nullptr;
            if (field == "cost")
                target = &policy.cost;
            else if (field == "warn")
                target = &policy.warn;
            else if (field == "ban_ms")
                target = &policy.banMs;
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
        parts << QStringLiteral("%1 per %2%3")
                     .arg(w.limit)
                     .arg(formatDuration(w.windowMs),
                          calendarAligned ? QStringLiteral(" (calendar)") : QString());
    return parts.join(QStringLiteral(", "));
}

Result<std::vector<WindowLimit>> Policy::parseWindows(const QString& text)
{
    std::vector<WindowLimit> windows;
    for (const QString& pair : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList parts = pair.split(QLatin1Char(':'));
        if (parts.size() != 2)
            return Error{
                ErrorKind::InvalidInput,
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
