#include "app/ctl/Output.h"

#include "core/keys/IdText.h"
#include "core/policies/Duration.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QTextStream>
#include <cstdio>

namespace tollgate::ctl {

namespace {

QTextStream& out()
{
    static QTextStream stream(stdout);
    return stream;
}

} // namespace

int exitCodeFor(ErrorKind kind)
{
    return kind == ErrorKind::InvalidInput ? ExitUsage : ExitFailure;
}

int fail(const Error& error)
{
    QString message = error.message.simplified(); // exactly one line, whatever the server said
    switch (error.kind) {
    case ErrorKind::InvalidInput:
    case ErrorKind::NotFound:
        break;
    case ErrorKind::Conflict:
        message = QStringLiteral("conflict: ") + message +
                  QStringLiteral(" (nothing saved; re-read with 'policy get' and try again)");
        break;
    default:
        message = errorKindName(error.kind) + QStringLiteral(" error: ") + message;
        break;
    }
    out().flush();
    std::fprintf(stderr, "tollgatectl: %s\n", qUtf8Printable(message));
    return exitCodeFor(error.kind);
}

void warn(const QString& message)
{
    out().flush();
    std::fprintf(stderr, "tollgatectl: warning: %s\n", qUtf8Printable(message.simplified()));
}

int usage(const QString& message)
{
    out().flush();
    std::fprintf(stderr, "tollgatectl: %s\n", qUtf8Printable(message.simplified()));
    return ExitUsage;
}

int runSubcommand(Cli& cli, const QStringList& args, const std::vector<Subcommand>& table)
{
    const QString sub = args.value(1);
    const QStringList rest = QStringList{args.value(0) + QLatin1Char(' ') + sub} + args.mid(2);
    QStringList names;
    for (const Subcommand& entry : table) {
        if (sub == QLatin1String(entry.name))
            return entry.run(cli, rest);
        names << QString::fromLatin1(entry.name);
    }
    const QString last = names.takeLast();
    const QString command = args.value(0).section(QLatin1Char(' '), -1); // "policy"
    if (sub.isEmpty())
        return usage(QStringLiteral("%1 needs a sub-command: %2 or %3")
                         .arg(command, names.join(QStringLiteral(", ")), last));
    return usage(QStringLiteral("unknown %1 sub-command '%2' (%3, %4)")
                     .arg(command, sub, names.join(QStringLiteral(", ")), last));
}

std::optional<int> parseArguments(QCommandLineParser& parser, const QStringList& args,
                                  int minPositional, int maxPositional)
{
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help."));
    parser.addOption(help);
    const QString command = args.value(0).section(QLatin1Char(' '), 1); // "hit", "policy set"
    if (!parser.parse(args))
        return usage(QStringLiteral("%1: %2 (see '%3 --help')")
                         .arg(command, parser.errorText().remove(QLatin1Char('.')), args.value(0)));
    if (parser.isSet(help)) {
        QString helpText = parser.helpText();
        // Qt names the binary as invoked; show the command as typed instead.
        const QStringList appArgs = QCoreApplication::arguments();
        if (!appArgs.isEmpty())
            helpText.replace(helpText.indexOf(appArgs.first()), appArgs.first().size(),
                             args.value(0));
        out() << helpText;
        out().flush();
        return int(ExitOk);
    }
    const int count = int(parser.positionalArguments().size());
    if (count < minPositional)
        return usage(
            QStringLiteral("%1: missing argument (see '%2 --help')").arg(command, args.value(0)));
    if (count > maxPositional)
        return usage(
            QStringLiteral("%1: unexpected argument '%2' (see '%3 --help')")
                .arg(command, parser.positionalArguments().value(maxPositional), args.value(0)));
    return std::nullopt;
}

Result<qint64> integerOption(const QCommandLineParser& parser, const QString& name, qint64 fallback)
{
    if (!parser.isSet(name))
        return fallback;
    bool ok = false;
    const QString value = parser.value(name);
    const qint64 number = value.trimmed().toLongLong(&ok);
    if (!ok)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("--%1 needs a whole number, got '%2'").arg(name, value)};
    return number;
}

void printJson(const QJsonObject& object)
{
    out() << QJsonDocument(object).toJson(QJsonDocument::Compact) << '\n';
    out().flush();
}

void printJson(const QJsonArray& array)
{
    out() << QJsonDocument(array).toJson(QJsonDocument::Compact) << '\n';
    out().flush();
}

void printLine(const QString& line)
{
    out() << line << '\n';
    out().flush();
}

void printTable(const QList<QStringList>& rows)
{
    QList<int> widths;
    for (const QStringList& row : rows) {
        for (int i = 0; i < row.size(); ++i) {
            if (widths.size() <= i)
                widths << 0;
            widths[i] = qMax(widths[i], int(row[i].size()));
        }
    }
    for (const QStringList& row : rows) {
        QString line;
        for (int i = 0; i < row.size(); ++i)
            line += i + 1 < row.size() ? row[i].leftJustified(widths[i] + 2) : row[i];
        out() << line << '\n';
    }
    out().flush();
}

QString humanMs(qint64 ms)
{
    if (ms < 0)
        return QStringLiteral("never");
    if (ms < 1000)
        return QString::number(ms) + QStringLiteral("ms");
    if (ms < 60'000)
        return QString::number(double(ms) / 1000.0, 'f', 1) + QStringLiteral("s");
    return formatDuration(ms / 1000 * 1000);
}

QString text(const QByteArray& id)
{
    return idToDisplayText(id);
}

QString timeText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QJsonArray toJson(const std::vector<PolicyFieldChange>& changes)
{
    QJsonArray fields;
    for (const PolicyFieldChange& c : changes)
        fields.append(QJsonObject{{QStringLiteral("field"), QString::fromLatin1(c.name)},
                                  {QStringLiteral("before"), c.before},
                                  {QStringLiteral("after"), c.after}});
    return fields;
}

// "midnight" (the next local one), an ISO date-time ("2030-01-31T18:00", local unless it has
// an offset or Z) or an ISO date (its local start).
Result<qint64> parseUntil(const QString& value)
{
    QDateTime when;
    if (value == QLatin1String("midnight")) {
        when = QDate::currentDate().addDays(1).startOfDay();
    } else {
        when = QDateTime::fromString(value, Qt::ISODateWithMs);
        if (!when.isValid()) {
            const QDate date = QDate::fromString(value, Qt::ISODate);
            if (date.isValid())
                when = date.startOfDay();
        }
    }
    if (!when.isValid())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("--until needs an ISO date/time like 2030-01-31T18:00, "
                                    "2030-01-31 or 'midnight'; got '%1'")
                         .arg(value)};
    return when.toMSecsSinceEpoch();
}

void writeFields(JsonWriter& out, const HitResult& hit)
{
    out.field("allowed", hit.allowed)
        .field("tier", tierName(hit.tier))
        .field("count", hit.count)
        .field("limit", hit.limit)
        .field("remaining", hit.remaining)
        .field("reset_ms", hit.resetMs)
        .field("retry_after_ms", hit.retryAfterMs);
    if (hit.countNow >= 0) // a peek's: the binding window as it stands, before that hit
        out.field("count_now", hit.countNow).field("reset_now_ms", hit.resetNowMs);
    // A shadow policy's hit: allowed, the rest what enforcing would have answered.
    if (hit.shadow)
        out.field("shadow", true).field("would_ban", hit.wouldBan);
    if (!hit.allowed && !hit.message.isEmpty())
        out.field("message", hit.message);
    if (hit.appliedOverride != AppliedOverride::None)
        out.field("override", appliedOverrideName(hit.appliedOverride));
    out.field("decided_by", decidedByName(hit.decidedBy));
    if (hit.decidedBy != DecidedBy::Redis)
        out.field("redis_error", hit.redisError);
}

QJsonObject toJson(const HitResult& hit)
{
    JsonWriter line;
    writeFields(line.beginObject(), hit);
    return QJsonDocument::fromJson(line.endObject().take()).object();
}

QJsonObject toJson(const Policy& policy)
{
    QJsonArray windows;
    for (const WindowLimit& w : policy.windows)
        windows.append(QJsonObject{{QStringLiteral("limit"), w.limit},
                                   {QStringLiteral("window_ms"), w.windowMs},
                                   {QStringLiteral("window"), formatDuration(w.windowMs)}});
    return QJsonObject{
        {QStringLiteral("action"), text(policy.action)},
        {QStringLiteral("algorithm"), QString::fromLatin1(algorithmName(policy.algorithm))},
        {QStringLiteral("windows"), windows},
        {QStringLiteral("cost"), policy.cost},
        {QStringLiteral("warn"), policy.warn},
        {QStringLiteral("ban_ms"), policy.banMs},
        {QStringLiteral("ban_until"),
         policy.banUntilMidnight ? QStringLiteral("midnight") : QString()},
        {QStringLiteral("align"),
         policy.calendarAligned ? QStringLiteral("calendar") : QStringLiteral("first_hit")},
        {QStringLiteral("tz"), QString::fromUtf8(policy.timeZone)},
        {QStringLiteral("count_denied"), policy.countDenied},
        {QStringLiteral("shadow"), policy.shadow},
        {QStringLiteral("message"), policy.message},
        {QStringLiteral("on_error"), QString::fromUtf8(failureModeName(policy.onError))},
        {QStringLiteral("revision"), policy.revision},
        {QStringLiteral("updated_by"), policy.updatedBy},
        {QStringLiteral("updated_ms"), policy.updatedMs},
    };
}

void writeFields(JsonWriter& out, const BanInfo& ban)
{
    out.field("user", ban.user)
        .field("action", ban.action)
        .field("scope", ban.action.isEmpty() ? QStringLiteral("user") : QStringLiteral("action"))
        .field("reason", ban.reason)
        .field("actor", ban.actor)
        .field("source", ban.source)
        .field("created_ms", ban.createdMs)
        .field("until_ms", ban.untilMs)
        .field("permanent", ban.untilMs == 0);
}

QJsonObject toJson(const BanInfo& ban)
{
    JsonWriter line;
    writeFields(line.beginObject(), ban);
    return QJsonDocument::fromJson(line.endObject().take()).object();
}

} // namespace tollgate::ctl
