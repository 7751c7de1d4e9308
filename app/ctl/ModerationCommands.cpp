// ban, unban, reset: each one script that also writes the user's audit stream.
#include "app/ctl/Command.h"
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

class BanCommand final : public Command
{
public:
    BanCommand() : Command(1, 1)
    {
        parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
        parser.addOptions({
            actionOption(),
            QCommandLineOption(QStringLiteral("for"),
                               QStringLiteral("Ban for this long (30m, 2h, 7d)."),
                               QStringLiteral("duration")),
            QCommandLineOption(
                QStringLiteral("until"),
                QStringLiteral("Ban until an ISO date/time (local time unless it has "
                               "an offset) or 'midnight'."),
                QStringLiteral("when")),
            QCommandLineOption(QStringLiteral("permanent"),
                               QStringLiteral("Ban until lifted by hand.")),
            reasonOption("Why (required)."),
        });
    }

private:
    Status check() override
    {
        if (int(isSet("for")) + int(isSet("until")) + int(isSet("permanent")) != 1)
            return invalidInput(
                QStringLiteral("ban needs exactly one of --for, --until or --permanent"));
        m_request.user = idArgument(0);
        m_request.action = idFromText(value("action"));
        m_request.actor = cli().actor;
        m_request.reason = value("reason");
        if (isSet("for")) {
            auto duration = parseDuration(value("for"));
            if (duration && *duration < 1)
                return invalidInput(QStringLiteral("--for must be longer than 0"));
            if (!duration)
                return duration.error();
            m_request.durationMs = *duration;
        } else if (isSet("until")) {
            auto until = parseUntil(value("until"));
            if (!until)
                return until.error();
            m_request.untilMs = *until;
        }
        if (isSet("action") && m_request.action.isEmpty())
            return invalidInput(QStringLiteral("--action must not be empty"));
        return Unit{};
    }

    Result<int> execute() override
    {
        const Moderation moderation(client(), schema());
        auto ban = waitFor<BanInfo>(
            [&](Callback<BanInfo> done) { moderation.ban(m_request, nullptr, done); });
        if (!ban)
            return ban.error();
        if (json())
            printJson(toJson(*ban));
        else
            printLine(banText(*ban));
        return ExitOk;
    }

    BanRequest m_request;
};

// unban and reset have one shape: a user, an optional --action, a reason, a count back.
using CountingOperation = void (Moderation::*)(const QByteArray&, const QByteArray&, const QString&,
                                               const QString&, Context, Callback<qint64>) const;

class CountingCommand final : public Command
{
public:
    CountingCommand(const char* reasonHelp, CountingOperation operation, QString countField,
                    QString summary)
        : Command(1, 1), m_operation(operation), m_countField(std::move(countField)),
          m_summary(std::move(summary))
    {
        parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
        parser.addOptions({actionOption(), reasonOption(reasonHelp)});
    }

private:
    Status check() override
    {
        m_user = idArgument(0);
        m_action = idFromText(value("action"));
        if (isSet("action") && m_action.isEmpty())
            return invalidInput(QStringLiteral("--action must not be empty"));
        m_reason = value("reason");
        // Core requires a reason for every moderation write; a scripted reset gets a default one.
        if (m_reason.trimmed().isEmpty() && m_operation == &Moderation::reset)
            m_reason = QStringLiteral("reset with tollgatectl");
        return Unit{};
    }

    Result<int> execute() override
    {
        const Moderation moderation(client(), schema());
        auto count = waitFor<qint64>([&](Callback<qint64> done) {
            (moderation.*m_operation)(m_user, m_action, cli().actor, m_reason, nullptr, done);
        });
        if (!count)
            return count.error();
        if (json())
            printJson(QJsonObject{{QStringLiteral("user"), text(m_user)},
                                  {QStringLiteral("action"), text(m_action)},
                                  {m_countField, *count}});
        else
            printLine(m_summary.arg(text(m_user)).arg(*count));
        return ExitOk;
    }

    CountingOperation m_operation;
    QString m_countField;
    QString m_summary;
    QByteArray m_user;
    QByteArray m_action;
    QString m_reason;
};

} // namespace

int banCommand(Cli& cli, const QStringList& args)
{
    return runCommand<BanCommand>(cli, args);
}

int unbanCommand(Cli& cli, const QStringList& args)
{
    return CountingCommand("Why (required).", &Moderation::unban, QStringLiteral("removed"),
                           QStringLiteral("unbanned %1: %2 ban(s) lifted"))
        .run(cli, args);
}

int resetCommand(Cli& cli, const QStringList& args)
{
    return CountingCommand("Why (default: \"reset with tollgatectl\").", &Moderation::reset,
                           QStringLiteral("deleted"),
                           QStringLiteral("reset %1: %2 counter(s) deleted"))
        .run(cli, args);
}

} // namespace tollgate::ctl
