// policy list | get | set | delete
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"

#include "core/policies/Duration.h"
#include "core/policies/PolicyText.h"
#include "tollgate/PolicyStore.h"

#include <QDateTime>
#include <QTimeZone>

namespace tollgate::ctl {

namespace {

QCommandLineOption valueOption(const char* name, const char* description, const char* valueName)
{
    return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(description),
                              QString::fromLatin1(valueName));
}

void printPolicyText(const Policy& policy)
{
    QString line = text(policy.action) + QStringLiteral(": ") +
                   QString::fromLatin1(algorithmName(policy.algorithm)) + QLatin1Char(' ') +
                   policy.windowsText();
    if (policy.cost != 1)
        line += QStringLiteral(", cost %1").arg(policy.cost);
    if (policy.warn > 0)
        line += QStringLiteral(", warn above %1").arg(policy.warn);
    if (policy.hasBan())
        line += QStringLiteral(", ") + policy.banText();
    if (policy.countDenied)
        line += QStringLiteral(", denied hits count");
    if (policy.onError != FailureMode::Report)
        line += QStringLiteral(", on error ") + QString::fromUtf8(failureModeName(policy.onError));
    if (policy.shadow)
        line += QStringLiteral(", SHADOW (never denies)");
    line += QStringLiteral(" (revision %1)").arg(policy.revision);
    printLine(line);
    if (!policy.message.isEmpty())
        printLine(QStringLiteral("  message: ") + policy.message);
}

class ListCommand final : public Command
{
public:
    ListCommand() : Command(0, 0) {}

private:
    Result<int> execute() override
    {
        const PolicyStore store(client(), schema());
        auto listing = waitFor<PolicyListing>(
            [&](Callback<PolicyListing> done) { store.listAll(nullptr, done); });
        if (!listing)
            return listing.error();
        const std::vector<Policy>& policies = listing->policies;
        if (json()) {
            QJsonArray array;
            for (const Policy& policy : policies)
                array.append(toJson(policy));
            for (const InvalidPolicy& bad : listing->invalid)
                array.append(QJsonObject{{QStringLiteral("action"), text(bad.action)},
                                         {QStringLiteral("invalid"), true},
                                         {QStringLiteral("error"), bad.reason}});
            printJson(array);
        } else if (policies.empty() && listing->invalid.empty()) {
            printLine(QStringLiteral("no policies"));
        } else {
            for (const Policy& policy : policies)
                printPolicyText(policy);
            for (const InvalidPolicy& bad : listing->invalid)
                printLine(QStringLiteral("%1: INVALID: %2").arg(text(bad.action), bad.reason));
        }
        // Listed, but a stored policy that cannot be enforced is a server-side problem: exit 3.
        return listing->invalid.empty() ? ExitOk : ExitFailure;
    }
};

class ReindexCommand final : public Command
{
public:
    ReindexCommand() : Command(0, 0) {}

private:
    Result<int> execute() override
    {
        const PolicyStore store(client(), schema());
        auto count = waitFor<qint64>([&](Callback<qint64> done) { store.reindex(nullptr, done); });
        if (!count)
            return count.error();
        if (json())
            printJson(QJsonObject{{QStringLiteral("indexed"), *count}});
        else
            printLine(QStringLiteral("policy index rebuilt: %1 policies").arg(*count));
        return ExitOk;
    }
};

class GetCommand final : public Command
{
public:
    GetCommand() : Command(1, 1)
    {
        parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
    }

private:
    Result<int> execute() override
    {
        const PolicyStore store(client(), schema());
        const QByteArray action = idArgument(0);
        auto policy =
            waitFor<Policy>([&](Callback<Policy> done) { store.get(action, nullptr, done); });
        if (!policy)
            return policy.error();
        if (json())
            printJson(toJson(*policy));
        else
            printPolicyText(*policy);
        return ExitOk;
    }
};

// The revision to save or delete with: --revision, else the stored one (0 when there is none).
Result<qint64> currentRevision(const QCommandLineParser& parser, const PolicyStore& store,
                               const QByteArray& action)
{
    if (parser.isSet(QStringLiteral("revision"))) {
        auto revision = integerOption(parser, QStringLiteral("revision"), 0);
        if (revision && *revision < 0)
            return Error{ErrorKind::InvalidInput, QStringLiteral("--revision must be 0 or more")};
        return revision;
    }
    auto stored = waitFor<Policy>([&](Callback<Policy> done) { store.get(action, nullptr, done); });
    if (stored)
        return stored->revision;
    if (stored.error().kind == ErrorKind::NotFound)
        return qint64(0);
    return stored.error();
}

// The stored policy of the action, for a change of its mode alone; --revision, when given,
// must be the stored one (the save compares it again).
Result<Policy> storedPolicy(const QCommandLineParser& parser, const PolicyStore& store)
{
    const QByteArray action = idFromText(parser.positionalArguments().at(0));
    auto stored = waitFor<Policy>([&](Callback<Policy> done) { store.get(action, nullptr, done); });
    if (!stored || !parser.isSet(QStringLiteral("revision")))
        return stored;
    auto revision = integerOption(parser, QStringLiteral("revision"), 0);
    if (!revision)
        return revision.error();
    stored->revision = *revision;
    return stored;
}

Result<Policy> policyFromFlags(const QCommandLineParser& parser)
{
    Policy policy;
    policy.action = idFromText(parser.positionalArguments().at(0));
    const bool single =
        parser.isSet(QStringLiteral("limit")) || parser.isSet(QStringLiteral("window"));
    if (parser.isSet(QStringLiteral("windows"))) {
        if (single)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("give --windows or --limit with --window, not both")};
        auto windows = Policy::parseWindows(parser.value(QStringLiteral("windows")));
        if (!windows)
            return windows.error();
        policy.windows = *windows;
    } else {
        if (!parser.isSet(QStringLiteral("limit")) || !parser.isSet(QStringLiteral("window")))
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("policy set needs --limit and --window (or --windows)")};
        auto limit = integerOption(parser, QStringLiteral("limit"), 0);
        if (!limit)
            return limit.error();
        auto window = parseDuration(parser.value(QStringLiteral("window")));
        if (!window)
            return window.error();
        policy.windows.push_back({*limit, *window});
    }
    if (parser.isSet(QStringLiteral("algorithm"))) {
        auto algorithm = algorithmFromText(parser.value(QStringLiteral("algorithm")));
        if (!algorithm)
            return algorithm.error();
        policy.algorithm = *algorithm;
    }
    auto cost = integerOption(parser, QStringLiteral("cost"), 1);
    if (!cost)
        return cost.error();
    policy.cost = *cost;
    auto warn = integerOption(parser, QStringLiteral("warn"), 0);
    if (!warn)
        return warn.error();
    policy.warn = *warn;
    if (parser.isSet(QStringLiteral("ban"))) {
        auto ban = parseDuration(parser.value(QStringLiteral("ban")));
        if (!ban)
            return ban.error();
        policy.banMs = *ban;
    }
    if (parser.isSet(QStringLiteral("ban-until"))) {
        if (parser.value(QStringLiteral("ban-until")) != QLatin1String("midnight"))
            return Error{ErrorKind::InvalidInput, QStringLiteral("--ban-until takes 'midnight'")};
        policy.banUntilMidnight = true;
    }
    // Midnight and calendar windows are local to the policy's IANA zone (default: this machine's).
    policy.timeZone = parser.isSet(QStringLiteral("tz"))
                          ? parser.value(QStringLiteral("tz")).toUtf8()
                          : QTimeZone::systemTimeZoneId();
    policy.calendarAligned = parser.isSet(QStringLiteral("calendar"));
    policy.countDenied = parser.isSet(QStringLiteral("count-denied"));
    policy.shadow = parser.isSet(QStringLiteral("shadow"));
    policy.message = parser.value(QStringLiteral("message"));
    if (parser.isSet(QStringLiteral("on-error"))) {
        const auto mode = failureModeFromName(parser.value(QStringLiteral("on-error")).toUtf8());
        if (!mode || *mode == FailureMode::Report)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("--on-error takes allow, deny or insurance")};
        policy.onError = *mode;
    }
    const Status valid = policy.validate();
    if (!valid)
        return valid.error();
    return policy;
}

class SetCommand final : public Command
{
public:
    SetCommand() : Command(1, 1)
    {
        parser.addPositionalArgument(QStringLiteral("action"),
                                     QStringLiteral("The action to limit."));
        parser.addOptions({
            valueOption("limit", "Hits allowed per window.", "n"),
            valueOption("window", "Window length: 500ms, 30s, 10m, 1h, 1d, 1w.", "duration"),
            valueOption("windows", "Several windows at once: 1m:10,1h:100,1d:1000.", "list"),
            valueOption("algorithm",
                        "fixed_window (default), sliding_log, sliding_window, token_bucket.",
                        "name"),
            valueOption("cost", "Default cost of one hit (default 1).", "n"),
            valueOption("warn", "Tier 'warn' above this count (default none).", "n"),
            valueOption("ban", "Ban for this long after exceeding the limit.", "duration"),
            valueOption("ban-until", "Ban until 'midnight' (local time in --tz).", "when"),
            valueOption("tz",
                        "IANA time zone for midnight and --calendar (default: this machine's).",
                        "zone"),
            QCommandLineOption(
                QStringLiteral("calendar"),
                QStringLiteral("fixed_window windows of 1m/1h/1d/1w start on the local "
                               "minute/hour/day/week (Monday) instead of at the first hit.")),
            QCommandLineOption(QStringLiteral("count-denied"),
                               QStringLiteral("Denied hits count too.")),
            valueOption("message", "Message shown to the user on deny.", "text"),
            valueOption(
                "on-error",
                "When Redis cannot answer a hit: allow, deny or insurance (default: report).",
                "mode"),
            QCommandLineOption(
                QStringLiteral("shadow"),
                QStringLiteral("Count and report, never deny nor ban (alone: switch the "
                               "stored policy to shadow).")),
            QCommandLineOption(
                QStringLiteral("enforce"),
                QStringLiteral("Alone: switch the stored shadow policy to enforced.")),
            valueOption("revision", "Save only if the stored policy is at this revision (0 = new).",
                        "n"),
        });
    }

private:
    Status check() override
    {
        if (isSet("shadow") && isSet("enforce"))
            return invalidInput(QStringLiteral("give --shadow or --enforce, not both"));
        return Unit{};
    }

    Result<int> execute() override
    {
        const bool toShadow = isSet("shadow");
        const PolicyStore store(client(), schema());
        // --shadow or --enforce without the limits: the stored policy, only its mode changed.
        const bool modeOnly = (toShadow || isSet("enforce")) && !isSet("limit") &&
                              !isSet("window") && !isSet("windows");
        Result<Policy> policy = modeOnly ? storedPolicy(parser, store) : policyFromFlags(parser);
        if (!policy)
            return policy.error();
        if (modeOnly && policy->shadow == toShadow && !isSet("revision"))
            return shown(*policy); // already so: no new revision for nothing
        policy->shadow = toShadow;
        auto revision = modeOnly ? Result<qint64>(policy->revision)
                                 : currentRevision(parser, store, policy->action);
        if (!revision)
            return revision.error();
        policy->revision = *revision;
        auto saved = waitFor<qint64>(
            [&](Callback<qint64> done) { store.save(*policy, cli().actor, nullptr, done); });
        if (!saved)
            return saved.error();
        // Show what is stored now, server-owned fields included.
        auto stored = waitFor<Policy>(
            [&](Callback<Policy> done) { store.get(policy->action, nullptr, done); });
        if (!stored) {
            policy->revision = *saved;
            policy->updatedBy = cli().actor;
        }
        return shown(stored ? *stored : *policy);
    }

    int shown(const Policy& policy) const
    {
        if (json())
            printJson(toJson(policy));
        else
            printPolicyText(policy);
        return ExitOk;
    }
};

class DeleteCommand final : public Command
{
public:
    DeleteCommand() : Command(1, 1)
    {
        parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
        parser.addOption(
            valueOption("revision", "Delete only if the policy is at this revision.", "n"));
    }

private:
    Result<int> execute() override
    {
        const PolicyStore store(client(), schema());
        const QByteArray action = idArgument(0);
        auto revision = currentRevision(parser, store, action);
        if (!revision)
            return revision.error();
        auto removed = waitFor<Unit>([&](Callback<Unit> done) {
            store.remove(action, *revision, cli().actor, nullptr, done);
        });
        if (!removed)
            return removed.error();
        if (json())
            printJson(QJsonObject{{QStringLiteral("action"), text(action)},
                                  {QStringLiteral("deleted"), true}});
        else
            printLine(QStringLiteral("policy %1 deleted").arg(text(action)));
        return ExitOk;
    }
};

} // namespace

int policyCommand(Cli& cli, const QStringList& args)
{
    auto history = [](const char* name) {
        return Subcommand{name, [name](Cli& cli, const QStringList& rest) {
                              return policyHistoryCommand(cli, QString::fromLatin1(name), rest);
                          }};
    };
    return runSubcommand(cli, args,
                         {{"list", runCommand<ListCommand>},
                          {"get", runCommand<GetCommand>},
                          {"set", runCommand<SetCommand>},
                          {"delete", runCommand<DeleteCommand>},
                          {"reindex", runCommand<ReindexCommand>},
                          {"export", policyExportCommand},
                          {"apply", policyApplyCommand},
                          history("history"),
                          history("diff"),
                          history("rollback"),
                          history("restore")});
}

} // namespace tollgate::ctl
