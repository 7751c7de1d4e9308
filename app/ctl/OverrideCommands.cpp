// override set | list | delete | reindex: one user's limits instead of the policy's, or none.
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"
#include "core/policies/Duration.h"
#include "tollgate/Overrides.h"
#include "tollgate/PolicyStore.h"

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

class SetCommand final : public Command
{
public:
    SetCommand() : Command(2, 2)
    {
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
            QCommandLineOption(QStringLiteral("permanent"),
                               QStringLiteral("Until deleted by hand.")),
            reasonOption(),
        });
    }

private:
    Status check() override
    {
        m_request.action = actionOf(argument(0));
        m_request.user = idArgument(1);
        m_request.actor = cli().actor;
        m_request.reason = value("reason");
        Status valid = readKind(parser, &m_request);
        if (valid)
            valid = readEnd(parser, &m_request);
        if (valid)
            valid = m_request.validate();
        return valid;
    }

    Result<int> execute() override
    {
        if (Status fits = checkAgainstPolicy(cli(), client(), m_request); !fits)
            return fits.error();
        auto stored = waitFor<Override>([&](Callback<Override> done) {
            OverrideStore(client(), schema()).set(m_request, nullptr, done);
        });
        if (!stored)
            return stored.error();
        if (json())
            printJson(toJson(*stored));
        else
            printLine(QStringLiteral("override of %1 for %2: %3, %4")
                          .arg(text(stored->user), text(stored->action), stored->describe(),
                               untilText(*stored)));
        return ExitOk;
    }

    OverrideRequest m_request;
};

class ListCommand final : public Command
{
public:
    ListCommand() : Command(0, 1)
    {
        parser.addPositionalArgument(QStringLiteral("user"),
                                     QStringLiteral("Only this user's (optional)."));
        parser.addOption(QCommandLineOption(
            QStringLiteral("action"),
            QStringLiteral("Only those that apply to this action (its own and '*')."),
            QStringLiteral("action")));
    }

private:
    Status check() override
    {
        m_action = actionOf(value("action"));
        if (isSet("action") && m_action.isEmpty())
            return invalidInput(QStringLiteral("--action must not be empty"));
        return Unit{};
    }

    Result<int> execute() override
    {
        const OverrideStore store(client(), schema());
        auto found = waitFor<std::vector<Override>>([&](Callback<std::vector<Override>> done) {
            if (parser.positionalArguments().isEmpty())
                store.list(m_action, nullptr, done);
            else
                store.ofUser(idArgument(0), nullptr, done);
        });
        if (!found)
            return found.error();
        QJsonArray array;
        QList<QStringList> rows{{QStringLiteral("USER"), QStringLiteral("ACTION"),
                                 QStringLiteral("OVERRIDE"), QStringLiteral("ENDS"),
                                 QStringLiteral("BY"), QStringLiteral("REASON")}};
        for (const Override& o : *found) {
            if (!m_action.isEmpty() && o.action != m_action && !o.everyAction())
                continue;
            array.append(toJson(o));
            rows << QStringList{text(o.user), text(o.action), o.describe(),
                                untilText(o), o.actor,        o.reason};
        }
        if (json())
            printJson(array);
        else if (rows.size() == 1)
            printLine(QStringLiteral("no overrides"));
        else
            printTable(rows);
        return ExitOk;
    }

    QByteArray m_action;
};

class DeleteCommand final : public Command
{
public:
    DeleteCommand() : Command(2, 2)
    {
        parser.addPositionalArgument(QStringLiteral("action"),
                                     QStringLiteral("The action, or '*'."));
        parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
        parser.addOption(reasonOption());
    }

private:
    Result<int> execute() override
    {
        const QByteArray action = actionOf(argument(0));
        const QByteArray user = idArgument(1);
        auto deleted = waitFor<bool>([&](Callback<bool> done) {
            OverrideStore(client(), schema())
                .remove(user, action, cli().actor, value("reason"), nullptr, done);
        });
        if (!deleted)
            return deleted.error();
        if (json())
            printJson(QJsonObject{{QStringLiteral("user"), text(user)},
                                  {QStringLiteral("action"), text(action)},
                                  {QStringLiteral("deleted"), *deleted}});
        else
            printLine((*deleted
                           ? QStringLiteral("deleted the override of %1 for %2")
                           : QStringLiteral("%1 had no override for %2 (the attempt is audited)"))
                          .arg(text(user), text(action)));
        return ExitOk;
    }
};

class ReindexCommand final : public Command
{
public:
    ReindexCommand() : Command(0, 0) {}

private:
    Result<int> execute() override
    {
        auto count = waitFor<qint64>([&](Callback<qint64> done) {
            OverrideStore(client(), schema()).reindex(nullptr, done);
        });
        if (!count)
            return count.error();
        if (json())
            printJson(QJsonObject{{QStringLiteral("users"), *count}});
        else
            printLine(
                QStringLiteral("override index rebuilt: %1 user(s) with overrides").arg(*count));
        return ExitOk;
    }
};

} // namespace

int overrideCommand(Cli& cli, const QStringList& args)
{
    return runSubcommand(cli, args,
                         {{"set", runCommand<SetCommand>},
                          {"list", runCommand<ListCommand>},
                          {"delete", runCommand<DeleteCommand>},
                          {"reindex", runCommand<ReindexCommand>}});
}

} // namespace tollgate::ctl
