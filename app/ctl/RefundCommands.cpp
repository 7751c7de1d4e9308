// refund and penalize: one refund.lua call against the action's stored policy.
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"

#include "tollgate/PolicyStore.h"
#include "tollgate/Refunds.h"

#include <QDateTime>

namespace tollgate::ctl {

namespace {

QString resultText(bool penalty, const QByteArray& user, const RefundResult& result)
{
    QString line;
    if (!result.changed)
        line = QStringLiteral("nothing to refund for %1 (its windows are empty)").arg(text(user));
    else
        line = QStringLiteral("%1 %2").arg(
            penalty ? QStringLiteral("penalized") : QStringLiteral("refunded"), text(user));
    line += QStringLiteral("  %1/%2  remaining %3  reset in %4")
                .arg(result.count)
                .arg(result.limit)
                .arg(result.remaining)
                .arg(humanMs(result.resetMs));
    if (result.banCreated)
        line += QStringLiteral("  banned until ") +
                QDateTime::fromMSecsSinceEpoch(result.banUntilMs).toString(Qt::ISODate);
    return line;
}

class RefundCommand final : public CostedCommand
{
public:
    explicit RefundCommand(bool penalty)
        : CostedCommand(penalty ? QStringLiteral("Units to add (required).")
                                : QStringLiteral("Units to give back (default: the policy's cost).")),
          m_penalty(penalty)
    {
        if (penalty)
            parser.addOption(QCommandLineOption(QStringLiteral("reason"),
                                                QStringLiteral("Why (required; recorded with a ban "
                                                               "the penalty creates)."),
                                                QStringLiteral("text")));
    }

private:
    Status check() override
    {
        if (m_penalty && !isSet("cost"))
            return invalidInput(QStringLiteral("penalize needs --cost"));
        m_reason = m_penalty ? value("reason") : QString();
        if (m_penalty && m_reason.trimmed().isEmpty())
            return invalidInput(QStringLiteral("penalize needs --reason"));
        return readCosted();
    }

    Result<int> execute() override
    {
        auto policy = waitFor<Policy>([&](Callback<Policy> done) {
            PolicyStore(client(), schema()).get(m_action, nullptr, done);
        });
        if (!policy)
            return policy.error();
        const Refunds refunds(client(), schema());
        auto result = waitFor<RefundResult>([&](Callback<RefundResult> done) {
            if (m_penalty)
                refunds.penalize(*policy, m_user, m_cost, cli().actor, m_reason, nullptr,
                                 done);
            else
                refunds.refund(*policy, m_user, m_cost, nullptr, done);
        });
        if (!result)
            return result.error();
        if (json())
            printJson(QJsonObject{{QStringLiteral("user"), text(m_user)},
                                  {QStringLiteral("action"), text(m_action)},
                                  {QStringLiteral("changed"), result->changed},
                                  {QStringLiteral("count"), result->count},
                                  {QStringLiteral("limit"), result->limit},
                                  {QStringLiteral("remaining"), result->remaining},
                                  {QStringLiteral("reset_ms"), result->resetMs},
                                  {QStringLiteral("ban_created"), result->banCreated},
                                  {QStringLiteral("ban_until_ms"), result->banUntilMs}});
        else
            printLine(resultText(m_penalty, m_user, *result));
        return ExitOk;
    }

    bool m_penalty;
    QString m_reason;
};

} // namespace

int refundCommand(Cli& cli, const QStringList& args)
{
    return RefundCommand(false).run(cli, args);
}

int penalizeCommand(Cli& cli, const QStringList& args)
{
    return RefundCommand(true).run(cli, args);
}

} // namespace tollgate::ctl
