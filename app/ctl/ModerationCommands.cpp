// ban, unban, reset: each one script that also writes the user's audit stream.
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"

#include "core/policies/Duration.h"

#include <QDateTime>
#include <QTimeZone>

namespace tollgate::ctl {

namespace {

QCommandLineOption actionOption()
{
    return QCommandLineOption(
        QStringLiteral("action"),
        QStringLiteral("Only this action (default: every action of the user)."),
        QStringLiteral("action"));
}

QCommandLineOption reasonOption(const char* description)
{
    return QCommandLineOption(QStringLiteral("reason"), QString::fromLatin1(description),
                              QStringLiteral("text"));
}

QString banText(const BanInfo& ban)
{
    const QString scope = ban.action.isEmpty() ? QStringLiteral("every action")
                                               : QStringLiteral("action ") + text(ban.action);
    const QString until =
        ban.untilMs == 0 ? QStringLiteral("permanently")
                         : QStringLiteral("until ") +
                               QDateTime::fromMSecsSinceEpoch(ban.untilMs).toString(Qt::ISODate);
    return QStringLiteral("banned %1 from %2 %3").arg(text(ban.user), scope, until);
}

} // namespace

int banCommand(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
    parser.addOptions({
        actionOption(),
        QCommandLineOption(QStringLiteral("for"),
                           QStringLiteral("Ban for this long (30m, 2h, 7d)."),
                           QStringLiteral("duration")),
        QCommandLineOption(QStringLiteral("until"),
                           QStringLiteral("Ban until an ISO date/time (local time unless it has "
                                          "an offset) or 'midnight'."),
                           QStringLiteral("when")),
        QCommandLineOption(QStringLiteral("permanent"),
                           QStringLiteral("Ban until lifted by hand.")),
        reasonOption("Why (required)."),
    });
    if (auto exit = parseArguments(parser, args, 1, 1))
        return *exit;
    const int ends = int(parser.isSet(QStringLiteral("for"))) +
                     int(parser.isSet(QStringLiteral("until"))) +
                     int(parser.isSet(QStringLiteral("permanent")));
    if (ends != 1)
        return usage(QStringLiteral("ban needs exactly one of --for, --until or --permanent"));

    BanRequest request;
    request.user = idFromText(parser.positionalArguments().at(0));
    request.action = idFromText(parser.value(QStringLiteral("action")));
    request.actor = cli.actor;
    request.reason = parser.value(QStringLiteral("reason"));
    if (parser.isSet(QStringLiteral("for"))) {
        auto duration = parseDuration(parser.value(QStringLiteral("for")));
        if (duration && *duration < 1)
            duration =
                Error{ErrorKind::InvalidInput, QStringLiteral("--for must be longer than 0")};
        if (!duration)
            return fail(duration.error());
        request.durationMs = *duration;
    } else if (parser.isSet(QStringLiteral("until"))) {
        auto until = parseUntil(parser.value(QStringLiteral("until")));
        if (!until)
            return fail(until.error());
        request.untilMs = *until;
    }
    if (parser.isSet(QStringLiteral("action")) && request.action.isEmpty())
        return usage(QStringLiteral("--action must not be empty"));

    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    const Moderation moderation(client, cli.schema());
    auto ban =
        waitFor<BanInfo>([&](Callback<BanInfo> done) { moderation.ban(request, nullptr, done); });
    if (!ban)
        return fail(ban.error());
    if (cli.json)
        printJson(toJson(*ban));
    else
        printLine(banText(*ban));
    return ExitOk;
}

namespace {

// unban and reset have one shape: a user, an optional --action, a reason, a count back.
using CountingOperation = void (Moderation::*)(const QByteArray&, const QByteArray&, const QString&,
                                               const QString&, Context, Callback<qint64>) const;

int countingCommand(Cli& cli, const QStringList& args, const char* reasonHelp,
                    CountingOperation operation, const QString& countField, const QString& summary)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
    parser.addOptions({actionOption(), reasonOption(reasonHelp)});
    if (auto exit = parseArguments(parser, args, 1, 1))
        return *exit;
    const QByteArray user = idFromText(parser.positionalArguments().at(0));
    const QByteArray action = idFromText(parser.value(QStringLiteral("action")));
    if (parser.isSet(QStringLiteral("action")) && action.isEmpty())
        return usage(QStringLiteral("--action must not be empty"));
    QString reason = parser.value(QStringLiteral("reason"));
    // Core requires a reason for every moderation write; a scripted reset gets a default one.
    if (reason.trimmed().isEmpty() && operation == &Moderation::reset)
        reason = QStringLiteral("reset with tollgatectl");
    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    const Moderation moderation(client, cli.schema());
    auto count = waitFor<qint64>([&](Callback<qint64> done) {
        (moderation.*operation)(user, action, cli.actor, reason, nullptr, done);
    });
    if (!count)
        return fail(count.error());
    if (cli.json)
        printJson(QJsonObject{{QStringLiteral("user"), text(user)},
                              {QStringLiteral("action"), text(action)},
                              {countField, *count}});
    else
        printLine(summary.arg(text(user)).arg(*count));
    return ExitOk;
}

} // namespace

int unbanCommand(Cli& cli, const QStringList& args)
{
    return countingCommand(cli, args, "Why (required).", &Moderation::unban,
                           QStringLiteral("removed"),
                           QStringLiteral("unbanned %1: %2 ban(s) lifted"));
}

int resetCommand(Cli& cli, const QStringList& args)
{
    return countingCommand(cli, args, "Why (default: \"reset with tollgatectl\").", &Moderation::reset,
                           QStringLiteral("deleted"),
                           QStringLiteral("reset %1: %2 counter(s) deleted"));
}

} // namespace tollgate::ctl
