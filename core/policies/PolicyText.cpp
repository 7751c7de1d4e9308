#include "core/policies/PolicyText.h"

#include "core/policies/Duration.h"

#include <QStringList>

namespace tollgate {

namespace {

using Kind = PolicyTextField::Kind;

Error invalidField(const QByteArray& name, const QString& why)
{
    return Error{ErrorKind::InvalidInput,
                 QStringLiteral("field %1: %2").arg(QString::fromLatin1(name), why)};
}

QString windowsSyntax(const std::vector<WindowLimit>& windows)
{
    QStringList pairs;
    for (const WindowLimit& w : windows)
        pairs << formatDuration(w.windowMs) + QLatin1Char(':') + QString::number(w.limit);
    return pairs.join(QLatin1Char(','));
}

QString banSyntax(const Policy& policy)
{
    if (policy.banUntilMidnight)
        return QStringLiteral("until midnight");
    return policy.banMs > 0 ? formatDuration(policy.banMs) : QStringLiteral("none");
}

QString boolSyntax(bool value)
{
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

Result<bool> boolFromText(const QByteArray& name, const QString& value)
{
    if (value == QLatin1String("true"))
        return true;
    if (value == QLatin1String("false"))
        return false;
    return invalidField(name, QStringLiteral("true or false, got '%1'").arg(value.left(40)));
}

Result<qint64> integerFromText(const QByteArray& name, const QString& value)
{
    bool ok = false;
    const qint64 number = value.toLongLong(&ok);
    if (!ok)
        return invalidField(name, QStringLiteral("not an integer: '%1'").arg(value.left(40)));
    return number;
}

// Reads one field into `policy`.
Status applyField(Policy& policy, const PolicyTextField& field)
{
    const QByteArray& name = field.name;
    const QString& value = field.value;
    if (name == "algorithm") {
        auto algorithm = algorithmFromText(value);
        if (!algorithm)
            return algorithm.error();
        policy.algorithm = *algorithm;
    } else if (name == "windows") {
        auto windows = Policy::parseWindows(value);
        if (!windows)
            return invalidField(name, windows.error().message);
        policy.windows = *windows;
    } else if (name == "cost" || name == "warn") {
        auto number = integerFromText(name, value);
        if (!number)
            return number.error();
        (name == "cost" ? policy.cost : policy.warn) = *number;
    } else if (name == "ban") {
        policy.banMs = 0;
        policy.banUntilMidnight = value == QLatin1String("until midnight");
        if (!policy.banUntilMidnight && value != QLatin1String("none")) {
            auto ban = parseDuration(value);
            if (!ban)
                return invalidField(name, ban.error().message +
                                              QStringLiteral(" ('none', 'until midnight' or a "
                                                             "duration such as 1h)"));
            policy.banMs = *ban;
        }
    } else if (name == "calendar" || name == "count_denied" || name == "shadow") {
        auto flag = boolFromText(name, value);
        if (!flag)
            return flag.error();
        (name == "calendar"       ? policy.calendarAligned
         : name == "count_denied" ? policy.countDenied
                                  : policy.shadow) = *flag;
    } else if (name == "time_zone") {
        policy.timeZone = value.toUtf8();
    } else if (name == "message") {
        policy.message = value;
    } else if (name == "on_error") {
        const auto mode = value == QLatin1String("report")
                              ? std::optional<FailureMode>(FailureMode::Report)
                              : failureModeFromName(value.toUtf8());
        if (!mode)
            return invalidField(
                name,
                QStringLiteral("report, allow, deny or insurance, got '%1'").arg(value.left(40)));
        policy.onError = *mode;
    } else {
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("unknown field '%1' (algorithm, windows, cost, warn, ban, "
                                    "calendar, time_zone, count_denied, message, on_error, shadow)")
                         .arg(QString::fromUtf8(name.left(40)))};
    }
    return Unit{};
}

} // namespace

Result<Algorithm> algorithmFromText(const QString& name)
{
    if (auto algorithm = algorithmFromName(name.toUtf8()))
        return *algorithm;
    return Error{ErrorKind::InvalidInput,
                 QStringLiteral("unknown algorithm '%1' (fixed_window, "
                                "sliding_log, sliding_window, token_bucket)")
                     .arg(name.left(40))};
}

PolicyText policyToText(const Policy& policy)
{
    return {
        {"algorithm", QString::fromLatin1(algorithmName(policy.algorithm)), Kind::Text},
        {"windows", windowsSyntax(policy.windows), Kind::Text},
        {"cost", QString::number(policy.cost), Kind::Integer},
        {"warn", QString::number(policy.warn), Kind::Integer},
        {"ban", banSyntax(policy), Kind::Text},
        {"calendar", boolSyntax(policy.calendarAligned), Kind::Boolean},
        {"time_zone", QString::fromUtf8(policy.timeZone), Kind::Text},
        {"count_denied", boolSyntax(policy.countDenied), Kind::Boolean},
        {"message", policy.message, Kind::Text},
        {"on_error",
         policy.onError == FailureMode::Report
             ? QStringLiteral("report")
             : QString::fromLatin1(failureModeName(policy.onError)),
         Kind::Text},
        {"shadow", boolSyntax(policy.shadow), Kind::Boolean},
    };
}

Result<Policy> policyFromText(const QByteArray& action, const PolicyText& fields)
{
    Policy policy;
    policy.action = action;
    for (const PolicyTextField& field : fields) {
        if (const Status read = applyField(policy, field); !read)
            return read.error();
    }
    if (const Status valid = policy.validate(); !valid)
        return valid.error();
    return policy;
}

std::vector<PolicyFieldChange> diffPolicies(const Policy& before, const Policy& after)
{
    const PolicyText a = policyToText(before);
    const PolicyText b = policyToText(after);
    std::vector<PolicyFieldChange> changes;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].value != b[i].value)
            changes.push_back({a[i].name, a[i].value, b[i].value});
    }
    return changes;
}

} // namespace tollgate
