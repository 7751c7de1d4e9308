// repair, audit, scripts: looking at what is in Redis.
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"

#include "core/audit/MergedAudit.h"
#include "core/keys/PatternRepair.h"
#include "core/policies/Duration.h"
#include "core/scripts/ScriptLibrary.h"
#include "core/scripts/ScriptRunner.h"
#include "core/scripts/ScriptSource.h"
#include "tollgate/AuditLog.h"
#include "tollgate/Repair.h"

#include <QDateTime>
#include <cstdio>
#include <limits>
#include <unistd.h>

namespace tollgate::ctl {

namespace {

QString kindName(KeySchema::Parsed::Kind kind)
{
    using Kind = KeySchema::Parsed::Kind;
    switch (kind) {
    case Kind::State:
        return QStringLiteral("state");
    case Kind::ActionBan:
        return QStringLiteral("action_ban");
    case Kind::UserBan:
        return QStringLiteral("user_ban");
    case Kind::UserAudit:
        return QStringLiteral("user_audit");
    case Kind::Overrides:
        return QStringLiteral("overrides");
    case Kind::Policy:
        return QStringLiteral("policy");
    case Kind::Audit:
        return QStringLiteral("audit");
    default:
        break; // foreign, or kinds this command does not list
    }
    return QStringLiteral("other");
}

class RepairCommand final : public Command
{
public:
    RepairCommand() : Command(0, 0)
    {
        parser.addOption(QCommandLineOption(
            QStringLiteral("fix"), QStringLiteral("Give the keys their TTL (default: dry run).")));
        parser.addOption(QCommandLineOption(
            QStringLiteral("reason"),
            QStringLiteral(
                "Why, for the audit entry of --fix (default: \"tollgatectl repair --fix\")."),
            QStringLiteral("text"), QStringLiteral("tollgatectl repair --fix")));
        parser.addOptions({
            QCommandLineOption(
                QStringLiteral("dry-run"),
                QStringLiteral("List what would change, change nothing (the default).")),
            QCommandLineOption(QStringLiteral("pattern"),
                               QStringLiteral("Another client's keys (a SCAN glob, e.g. 'likes:*') "
                                              "instead of Tollgate's own; needs --ttl."),
                               QStringLiteral("glob")),
            QCommandLineOption(
                QStringLiteral("ttl"),
                QStringLiteral("With --pattern: the TTL a key without one gets (90s, 1h, 7d)."),
                QStringLiteral("duration")),
            QCommandLineOption(QStringLiteral("rate"),
                               QStringLiteral("With --pattern: keys examined per second at most "
                                              "(default 1000; 0: no cap)."),
                               QStringLiteral("n")),
        });
    }

private:
    Status check() override
    {
        if (isSet("dry-run") && isSet("fix"))
            return invalidInput(QStringLiteral("--dry-run and --fix exclude each other"));
        if (!isSet("pattern")) {
            if (isSet("ttl") || isSet("rate"))
                return invalidInput(QStringLiteral("--ttl and --rate go with --pattern"));
            return Unit{};
        }
        m_pattern.pattern = value("pattern").toUtf8();
        if (!isSet("ttl"))
            return invalidInput(QStringLiteral("--pattern needs --ttl: the TTL to give its keys"));
        auto ttl = parseDuration(value("ttl"));
        if (!ttl)
            return invalidInput(QStringLiteral("--ttl: ") + ttl.error().message);
        m_pattern.ttlMs = *ttl;
        auto rate = integerOption(parser, QStringLiteral("rate"), 1000);
        if (!rate)
            return rate.error();
        m_pattern.rate = *rate;
        m_pattern.fix = isSet("fix");
        m_pattern.actor = cli().actor;
        m_pattern.reason = value("reason");
        if (Status valid = PatternRepair::validate(m_pattern, schema()); !valid)
            return invalidInput(valid.error().message);
        return Unit{};
    }

    Result<int> execute() override
    {
        if (isSet("pattern"))
            return executePattern();
        RepairOptions options;
        options.fix = isSet("fix");
        options.actor = cli().actor;
        options.reason = value("reason");
        // The report keeps what the audit entry of a fix names.
        auto report = runRepair(Repair(client(), schema()), options, Repair::kMaxNamedKeys);
        if (!report)
            return report.error();
        if (json())
            printJson(reportJson(*report, options.fix));
        else
            printLine(QStringLiteral("scanned %1 keys: %2 without the TTL they need, %3 fixed, %4 "
                                     "not ours skipped%5%6")
                          .arg(report->totals.scanned)
                          .arg(report->totals.found)
                          .arg(report->totals.fixed)
                          .arg(report->skipped)
                          .arg(report->wrongType > 0
                                   ? QStringLiteral(", %1 of the wrong type (no TTL helps: every "
                                                    "script touching them fails until they are "
                                                    "deleted, e.g. in the console's Keys page)")
                                         .arg(report->wrongType)
                                   : QString())
                          .arg(!options.fix && report->totals.found > 0
                                   ? QStringLiteral(" (run with --fix to repair)")
                                   : QString()));
        return ExitOk;
    }

    // Runs a repair with a progress line on a terminal. No cap on what is found: the text lines
    // stream out as each batch is checked (constant memory; the report keeps `textItems`), the
    // JSON document holds every item.
    template <typename Repairer, typename Options>
    Result<RepairReport> runRepair(const Repairer& repair, Options& options, qint64 textItems)
    {
        const bool showProgress = !json() && isatty(STDERR_FILENO);
        options.maxItems = json() ? std::numeric_limits<qint64>::max() : textItems;
        if (!json())
            options.onFound = linePrinter(showProgress);
        auto report = waitFor<RepairReport>([&](Callback<RepairReport> done) {
            repair.run(options, progressPrinter(showProgress), nullptr, done);
        });
        if (showProgress)
            std::fputs("\r\033[K", stderr);
        return report;
    }

    // --pattern: another client's keys, on every server that holds some, paced.
    Result<int> executePattern()
    {
        PatternRepairOptions& options = m_pattern;
        auto report = runRepair(PatternRepair(client(), schema()), options, 0);
        if (!report)
            return report.error();
        if (json()) {
            QJsonObject object = reportJson(*report, options.fix);
            object.insert(QStringLiteral("pattern"), text(options.pattern));
            object.insert(QStringLiteral("ttl_ms"), options.ttlMs);
            printJson(object);
        } else {
            printLine(QStringLiteral("scanned %1 keys matching %2: %3 without a TTL, %4 fixed, %5 "
                                     "skipped (Tollgate's own, or no audit stream in their slot)%6")
                          .arg(report->totals.scanned)
                          .arg(text(options.pattern))
                          .arg(report->totals.found)
                          .arg(report->totals.fixed)
                          .arg(report->skipped)
                          .arg(!options.fix && report->totals.found > 0
                                   ? QStringLiteral(" (run with --fix to give them ttl %1)")
                                         .arg(humanMs(options.ttlMs))
                                   : QString()));
        }
        return ExitOk;
    }

    // Text output: one line per key found, as its batch is checked.
    static std::function<void(std::vector<RepairItem>&)> linePrinter(bool showProgress)
    {
        return [showProgress](std::vector<RepairItem>& found) {
            if (showProgress)
                std::fputs("\r\033[K", stderr);
            for (const RepairItem& item : found)
                printLine(item.status == QLatin1String("wrong_type")
                              ? QStringLiteral("%1  %2  is a %3, must be a %4")
                                    .arg(item.status, text(item.key), text(item.type),
                                         text(item.expectedType))
                              : QStringLiteral("%1  %2  ttl %3")
                                    .arg(item.status, text(item.key), humanMs(item.ttlMs)));
        };
    }

    static Repair::ProgressFn progressPrinter(bool showProgress)
    {
        return [showProgress](const RepairProgress& p) {
            if (showProgress)
                std::fprintf(stderr, "\rscanned %lld  without TTL %lld  fixed %lld",
                             static_cast<long long>(p.scanned), static_cast<long long>(p.found),
                             static_cast<long long>(p.fixed));
            return true;
        };
    }

    static QJsonObject reportJson(const RepairReport& report, bool fix)
    {
        QJsonArray items;
        for (const RepairItem& item : report.items) {
            QJsonObject object{{QStringLiteral("key"), text(item.key)},
                               {QStringLiteral("kind"), kindName(item.parsed.kind)},
                               {QStringLiteral("user"), text(item.parsed.user)},
                               {QStringLiteral("action"), text(item.parsed.action)},
                               {QStringLiteral("status"), item.status},
                               {QStringLiteral("ttl_ms"), item.ttlMs}};
            if (!item.type.isEmpty()) { // wrong_type
                object.insert(QStringLiteral("type"), text(item.type));
                object.insert(QStringLiteral("expected"), text(item.expectedType));
            }
            items.append(object);
        }
        return QJsonObject{
            {QStringLiteral("mode"), fix ? QStringLiteral("fix") : QStringLiteral("dry")},
            {QStringLiteral("scanned"), report.totals.scanned},
            {QStringLiteral("found"), report.totals.found},
            {QStringLiteral("fixed"), report.totals.fixed},
            {QStringLiteral("skipped"), report.skipped},
            {QStringLiteral("wrong_type"), report.wrongType},
            {QStringLiteral("items"), items}};
    }

    PatternRepairOptions m_pattern;
};

class AuditCommand final : public Command
{
public:
    AuditCommand() : Command(0, 0)
    {
        parser.addOptions({
            QCommandLineOption(QStringLiteral("user"),
                               QStringLiteral("This user's stream (default: the global one; on a "
                                              "cluster every user's stream, merged)."),
                               QStringLiteral("user")),
            QCommandLineOption(QStringLiteral("count"),
                               QStringLiteral("Newest N entries (default 20)."),
                               QStringLiteral("n")),
        });
    }

private:
    Status check() override
    {
        auto count = integerOption(parser, QStringLiteral("count"), 20);
        if (count && (*count < 1 || *count > 100'000))
            return invalidInput(QStringLiteral("--count must be between 1 and 100000"));
        if (!count)
            return count.error();
        m_count = int(*count);
        m_user = idFromText(value("user"));
        if (isSet("user"))
            return KeySchema::validateId(m_user, QStringLiteral("user id"));
        return Unit{};
    }

    Result<int> execute() override
    {
        const AuditLog log(client(), schema());
        auto entries =
            waitFor<std::vector<AuditEntry>>([&](Callback<std::vector<AuditEntry>> done) {
                // A cluster has no global stream users' changes reach: the view is merged from
                // theirs.
                client()->whenModeKnown(nullptr, [&, done] {
                    if (client()->keysInOneSlot() && m_user.isEmpty())
                        latestMergedAudit(client(), schema(), m_count, {}, nullptr, done);
                    else
                        log.latest(m_user, m_count, nullptr, done);
                });
            });
        if (!entries)
            return entries.error();
        if (json()) {
            QJsonArray array;
            for (const AuditEntry& e : *entries)
                array.append(QJsonObject{{QStringLiteral("id"), text(e.id)},
                                         {QStringLiteral("time_ms"), e.timeMs},
                                         {QStringLiteral("event"), e.event},
                                         {QStringLiteral("user"), text(e.user)},
                                         {QStringLiteral("action"), text(e.action)},
                                         {QStringLiteral("actor"), e.actor},
                                         {QStringLiteral("reason"), e.reason},
                                         {QStringLiteral("until_ms"), e.untilMs},
                                         {QStringLiteral("detail"), e.detail}});
            printJson(array);
            return ExitOk;
        }
        QList<QStringList> rows{{QStringLiteral("TIME"), QStringLiteral("EVENT"),
                                 QStringLiteral("USER"), QStringLiteral("ACTION"),
                                 QStringLiteral("ACTOR"), QStringLiteral("REASON")}};
        for (const AuditEntry& e : *entries)
            rows << QStringList{timeText(e.timeMs), e.event, text(e.user),
                                text(e.action),     e.actor, e.reason.simplified()};
        printTable(rows);
        return ExitOk;
    }

    int m_count = 20;
    QByteArray m_user;
};

const QCommandLineOption kSourceOption(
    QStringLiteral("source"),
    QStringLiteral("Where a line of an assembled script comes from: <script>:<line> (hit:812) or "
                   "Redis's error text (user_script:812). Needs no server."),
    QStringLiteral("where"));

class ScriptsCommand final : public Command
{
public:
    ScriptsCommand() : Command(0, 0) { parser.addOption(kSourceOption); }

private:
    Result<int> execute() override
    {
        auto loaded = waitFor<QList<bool>>(
            [&](Callback<QList<bool>> done) { scriptsLoaded(client(), nullptr, done); });
        if (!loaded)
            return loaded.error();
        const auto& scripts = ScriptLibrary::instance().scripts();
        if (json()) {
            QJsonArray array;
            for (int i = 0; i < scripts.size(); ++i)
                array.append(
                    QJsonObject{{QStringLiteral("name"), scripts[i].name},
                                {QStringLiteral("sha1"), QString::fromLatin1(scripts[i].sha1)},
                                {QStringLiteral("loaded"), loaded->value(i)},
                                {QStringLiteral("summary"), scripts[i].summary}});
            printJson(array);
            return ExitOk;
        }
        QList<QStringList> rows{{QStringLiteral("NAME"), QStringLiteral("SHA1"),
                                 QStringLiteral("LOADED"), QStringLiteral("SUMMARY")}};
        for (int i = 0; i < scripts.size(); ++i)
            rows << QStringList{scripts[i].name, QString::fromLatin1(scripts[i].sha1),
                                loaded->value(i) ? QStringLiteral("yes") : QStringLiteral("no"),
                                scripts[i].summary};
        printTable(rows);
        return ExitOk;
    }
};

// scripts --source: a line of an assembled script back to its source line, from the line map
// compiled in with the scripts; no client is opened.
int scriptSourceCommand(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addOption(kSourceOption);
    if (auto exit = parseArguments(parser, args, 0, 0))
        return *exit;
    const auto found = locateSourceLine(parser.value(kSourceOption));
    if (!found)
        return fail(found.error());
    if (cli.json) {
        QJsonArray array;
        for (const SourceLine& at : *found)
            array.append(QJsonObject{{QStringLiteral("script"), at.script},
                                     {QStringLiteral("line"), at.line},
                                     {QStringLiteral("source"), at.source},
                                     {QStringLiteral("source_line"), at.sourceLine},
                                     {QStringLiteral("text"), at.text}});
        printJson(array);
        return ExitOk;
    }
    for (const SourceLine& at : *found)
        printLine(QStringLiteral("%1:%2  %3:%4  %5")
                      .arg(at.script)
                      .arg(at.line)
                      .arg(at.source)
                      .arg(at.sourceLine)
                      .arg(at.text.trimmed()));
    return ExitOk;
}

} // namespace

int repairCommand(Cli& cli, const QStringList& args)
{
    return runCommand<RepairCommand>(cli, args);
}

int auditCommand(Cli& cli, const QStringList& args)
{
    return runCommand<AuditCommand>(cli, args);
}

int scriptsCommand(Cli& cli, const QStringList& args)
{
    for (const QString& arg : args)
        if (arg == QLatin1String("--source") || arg.startsWith(QLatin1String("--source=")))
            return scriptSourceCommand(cli, args);
    return runCommand<ScriptsCommand>(cli, args);
}

} // namespace tollgate::ctl
