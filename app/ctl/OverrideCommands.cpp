// override set | list | delete | reindex: one user's limits instead of the policy's, or none.
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"
#include "core/moderation/Overrides.h"
#include "core/policies/Duration.h"
#include "core/policies/PolicyStore.h"

#include <QDateTime>

namespace tollgate::ctl {

namespace {

QCommandLineOption reasonOption()
{
    return QCommandLineOption(QStringLiteral("reason"), QStringLiteral("Why (required)."),
                              QStringLiteral("text"));
}

QByteArray actionOf(const QString& argument)
{
    return argument == QLatin1String("*") ? QByteArray(Override::kEveryAction)
                                          : idFromText(argument);
}

QJsonObject toJson(const Override& o)
{
    QJsonArray windows;
    for (const WindowLimit& w : o.windows)
        windows.append(QJsonObject{{QStringLiteral("limit"), w.limit},
                                   {QStringLiteral("window_ms"), w.windowMs},
                                   {QStringLiteral("window"), formatDuration(w.windowMs)}});
    return QJsonObject{{QStringLiteral("user"), text(o.user)},
                       {QStringLiteral("action"), text(o.action)},
                       {QStringLiteral("kind"), overrideKindName(o.kind)},
                       {QStringLiteral("windows"), windows},
                       {QStringLiteral("until_ms"), o.untilMs},
                       {QStringLiteral("permanent"), o.isPermanent()},
                       {QStringLiteral("actor"), o.actor},
                       {QStringLiteral("reason"), o.reason},
                       {QStringLiteral("set_ms"), o.setMs}};
}

QString untilText(const Override& o)
{
    return o.isPermanent() ? QStringLiteral("permanent")
                           : QStringLiteral("until ") +
                                 QDateTime::fromMSecsSinceEpoch(o.untilMs).toString(Qt::ISODate);
}

// The override's windows from --limit/--window, --windows or --unlimited (exactly one).
Status readKind(const QCommandLineParser& parser, OverrideRequest* request)
{
    const bool single =
        parser.isSet(QStringLiteral("limit")) || parser.isSet(QStringLiteral("window"));
    const bool several = parser.isSet(QStringLiteral("windows"));
    const bool unlimited = parser.isSet(QStringLiteral("unlimited"));
    if (int(single) + int(several) + int(unlimited) != 1)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("override set needs exactly one of --limit N --window D, "
                                    "--windows D:N,... or --unlimited")};
    if (unlimited) {
        request->kind = OverrideKind::Unlimited;
        return Unit{};
    }
    request->kind = OverrideKind::Limit;
    if (several) {
        auto windows = Policy::parseWindows(parser.value(QStringLiteral("windows")));
        if (!windows)
            return windows.error();
        request->windows = *windows;
        return Unit{};
    }
    if (!parser.isSet(QStringLiteral("limit")) || !parser.isSet(QStringLiteral("window")))
        return Error{ErrorKind::InvalidInput, QStringLiteral("--limit and --window go together")};
    auto limit = integerOption(parser, QStringLiteral("limit"), 0);
    auto window = parseDuration(parser.value(QStringLiteral("window")));
    if (!limit)
        return limit.error();
    if (!window)
        return window.error();
    request->windows = {{*limit, *window}};
    return Unit{};
}

// Its end from --for, --until or --permanent (exactly one).
Status readEnd(const QCommandLineParser& parser, OverrideRequest* request)
{
    const int ends = int(parser.isSet(QStringLiteral("for"))) +
                     int(parser.isSet(QStringLiteral("until"))) +
                     int(parser.isSet(QStringLiteral("permanent")));
    if (ends != 1)
        return Error{
            ErrorKind::InvalidInput,
            QStringLiteral("override set needs exactly one of --for, --until or --permanent")};
    request->permanent = parser.isSet(QStringLiteral("permanent"));
    if (parser.isSet(QStringLiteral("for"))) {
        auto duration = parseDuration(parser.value(QStringLiteral("for")));
        if (duration && *duration < 1)
            return Error{ErrorKind::InvalidInput, QStringLiteral("--for must be longer than 0")};
        if (!duration)
            return duration.error();
        request->durationMs = *duration;
    } else if (parser.isSet(QStringLiteral("until"))) {
        auto until = parseUntil(parser.value(QStringLiteral("until")));
        if (!until)
            return until.error();
        if (*until <= QDateTime::currentMSecsSinceEpoch())
            return Error{ErrorKind::InvalidInput, QStringLiteral("--until is not in the future")};
        request->untilMs = *until;
    }
    return Unit{};
}

// An override changes a policy's windows for one user: the action must have a policy, and
// the windows must suit its algorithm (a sliding log's limit, a token bucket's rate).
Status checkAgainstPolicy(Cli& cli, Client* client, const OverrideRequest& request)
{
    if (request.action == Override::kEveryAction)
        return Unit{};
    auto policy = waitFor<Policy>([&](Callback<Policy> done) {
        PolicyStore(client, cli.schema()).get(request.action, nullptr, done);
    });
    if (!policy && policy.error().kind == ErrorKind::NotFound)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("action %1 has no policy: an override replaces a policy's "
                                    "limits for one user (set the policy first, or use '*')")
                         .arg(text(request.action))};
    if (!policy)
        return policy.error();
    if (request.kind == OverrideKind::Unlimited)
        return Unit{};
    Policy shape = *policy; // the windows as given: a limit the algorithm cannot hold is an error
    shape.windows = request.windows;
    shape.calendarAligned = false; // other windows than calendar ones start at the first hit
    if (Status valid = shape.validate(); !valid)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("override for %1 (%2): %3")
                         .arg(text(request.action),
                              QString::fromLatin1(algorithmName(policy->algorithm)),
                              valid.error().message)};
    return Unit{};
}

int setCommand(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"),
                                 QStringLiteral("The action, or '*' for every action."));
    parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
    parser.addOptions({
        QCommandLineOption(QStringLiteral("limit"), QStringLiteral("Units per --window."),
                           QStringLiteral("n")),
        QCommandLineOption(QStringLiteral("window"), QStringLiteral("The window (1m, 1h, 1d)."),
                           QStringLiteral("duration")),
        QCommandLineOption(QStringLiteral("windows"),
                           QStringLiteral("Several windows: 1m:100,1h:1000."),
                           QStringLiteral("list")),
        QCommandLineOption(
            QStringLiteral("unlimited"),
            QStringLiteral("Exempt: counted, never denied, never banned automatically.")),
        QCommandLineOption(QStringLiteral("for"), QStringLiteral("For this long (24h, 7d)."),
                           QStringLiteral("duration")),
        QCommandLineOption(
            QStringLiteral("until"),
            QStringLiteral("Until an ISO date/time (local unless it has an offset)."),
            QStringLiteral("when")),
        QCommandLineOption(QStringLiteral("permanent"), QStringLiteral("Until deleted by hand.")),
        reasonOption(),
    });
    if (auto exit = parseArguments(parser, args, 2, 2))
        return *exit;
    OverrideRequest request;
    request.action = actionOf(parser.positionalArguments().at(0));
    request.user = idFromText(parser.positionalArguments().at(1));
    request.actor = cli.actor;
    request.reason = parser.value(QStringLiteral("reason"));
    Status valid = readKind(parser, &request);
    if (valid)
        valid = readEnd(parser, &request);
    if (valid)
        valid = request.validate();
    if (!valid)
        return fail(valid.error());
    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    if (Status fits = checkAgainstPolicy(cli, client, request); !fits)
        return fail(fits.error());
    auto stored = waitFor<Override>([&](Callback<Override> done) {
        OverrideStore(client, cli.schema()).set(request, nullptr, done);
    });
    if (!stored)
        return fail(stored.error());
    if (cli.json)
        printJson(toJson(*stored));
    else
        printLine(QStringLiteral("override of %1 for %2: %3, %4")
                      .arg(text(stored->user), text(stored->action), stored->describe(),
                           untilText(*stored)));
    return ExitOk;
}

int listCommand(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("user"),
                                 QStringLiteral("Only this user's (optional)."));
    parser.addOption(QCommandLineOption(
        QStringLiteral("action"),
        QStringLiteral("Only those that apply to this action (its own and '*')."),
        QStringLiteral("action")));
    if (auto exit = parseArguments(parser, args, 0, 1))
        return *exit;
    const QByteArray action = actionOf(parser.value(QStringLiteral("action")));
    if (parser.isSet(QStringLiteral("action")) && action.isEmpty())
        return usage(QStringLiteral("--action must not be empty"));
    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    const OverrideStore store(client, cli.schema());
    auto found = waitFor<std::vector<Override>>([&](Callback<std::vector<Override>> done) {
        if (parser.positionalArguments().isEmpty())
            store.list(action, nullptr, done);
        else
            store.ofUser(idFromText(parser.positionalArguments().at(0)), nullptr, done);
    });
    if (!found)
        return fail(found.error());
    QJsonArray array;
    QList<QStringList> rows{{QStringLiteral("USER"), QStringLiteral("ACTION"),
                             QStringLiteral("OVERRIDE"), QStringLiteral("ENDS"),
                             QStringLiteral("BY"), QStringLiteral("REASON")}};
    for (const Override& o : *found) {
        if (!action.isEmpty() && o.action != action && !o.everyAction())
            continue;
        array.append(toJson(o));
        rows << QStringList{text(o.user), text(o.action), o.describe(),
                            untilText(o), o.actor,        o.reason};
    }
    if (cli.json)
        printJson(array);
    else if (rows.size() == 1)
        printLine(QStringLiteral("no overrides"));
    else
        printTable(rows);
    return ExitOk;
}

int deleteCommand(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action, or '*'."));
    parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
    parser.addOption(reasonOption());
    if (auto exit = parseArguments(parser, args, 2, 2))
        return *exit;
    const QByteArray action = actionOf(parser.positionalArguments().at(0));
    const QByteArray user = idFromText(parser.positionalArguments().at(1));
    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    auto deleted = waitFor<bool>([&](Callback<bool> done) {
        OverrideStore(client, cli.schema())
            .remove(user, action, cli.actor, parser.value(QStringLiteral("reason")), nullptr, done);
    });
    if (!deleted)
        return fail(deleted.error());
    if (cli.json)
        printJson(QJsonObject{{QStringLiteral("user"), text(user)},
                              {QStringLiteral("action"), text(action)},
                              {QStringLiteral("deleted"), *deleted}});
    else
        printLine((*deleted ? QStringLiteral("deleted the override of %1 for %2")
                            : QStringLiteral("%1 had no override for %2 (the attempt is audited)"))
                      .arg(text(user), text(action)));
    return ExitOk;
}

int reindexCommand(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    if (auto exit = parseArguments(parser, args, 0, 0))
        return *exit;
    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    auto count = waitFor<qint64>(
        [&](Callback<qint64> done) { OverrideStore(client, cli.schema()).reindex(nullptr, done); });
    if (!count)
        return fail(count.error());
    if (cli.json)
        printJson(QJsonObject{{QStringLiteral("users"), *count}});
    else
        printLine(QStringLiteral("override index rebuilt: %1 user(s) with overrides").arg(*count));
    return ExitOk;
}

} // namespace

int overrideCommand(Cli& cli, const QStringList& args)
{
    return runSubcommand(cli, args,
                         {{"set", setCommand},
                          {"list", listCommand},
                          {"delete", deleteCommand},
                          {"reindex", reindexCommand}});
}

} // namespace tollgate::ctl
