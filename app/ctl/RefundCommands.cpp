// refund and penalize: one refund.lua call against the action's stored policy.
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"

#include "core/moderation/Refunds.h"
#include "core/policies/PolicyStore.h"

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

int run(Cli& cli, const QStringList& args, bool penalty)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
    parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
    parser.addOption(QCommandLineOption(
        QStringLiteral("cost"),
        penalty ? QStringLiteral("Units to add (required).")
                : QStringLiteral("Units to give back (default: the policy's cost)."),
        QStringLiteral("n")));
    if (penalty)
        parser.addOption(QCommandLineOption(QStringLiteral("reason"),
                                            QStringLiteral("Why (required; recorded with a ban "
                                                           "the penalty creates)."),
                                            QStringLiteral("text")));
    if (auto exit = parseArguments(parser, args, 2, 2))
        return *exit;
    if (penalty && !parser.isSet(QStringLiteral("cost")))
        return usage(QStringLiteral("penalize needs --cost"));
    const QString reason = penalty ? parser.value(QStringLiteral("reason")) : QString();
    if (penalty && reason.trimmed().isEmpty())
        return usage(QStringLiteral("penalize needs --reason"));
    auto cost = integerOption(parser, QStringLiteral("cost"), 0);
    if (cost && parser.isSet(QStringLiteral("cost")) && *cost < 1)
        cost = Error{ErrorKind::InvalidInput, QStringLiteral("--cost must be 1 or more")};
    if (!cost)
        return fail(cost.error());
    const QByteArray action = idFromText(parser.positionalArguments().at(0));
    const QByteArray user = idFromText(parser.positionalArguments().at(1));
    if (const Status valid = KeySchema::validateId(user, QStringLiteral("user id")); !valid)
        return fail(valid.error());

    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    auto policy = waitFor<Policy>([&](Callback<Policy> done) {
        PolicyStore(client, cli.schema()).get(action, nullptr, done);
    });
    if (!policy)
        return fail(policy.error());
    const Refunds refunds(client, cli.schema());
    auto result = waitFor<RefundResult>([&](Callback<RefundResult> done) {
        if (penalty)
            refunds.penalize(*policy, user, *cost, cli.actor, reason, nullptr, done);
        else
            refunds.refund(*policy, user, *cost, nullptr, done);
    });
    if (!result)
        return fail(result.error());
    if (cli.json)
        printJson(QJsonObject{{QStringLiteral("user"), text(user)},
                              {QStringLiteral("action"), text(action)},
                              {QStringLiteral("changed"), result->changed},
                              {QStringLiteral("count"), result->count},
                              {QStringLiteral("limit"), result->limit},
                              {QStringLiteral("remaining"), result->remaining},
                              {QStringLiteral("reset_ms"), result->resetMs},
                              {QStringLiteral("ban_created"), result->banCreated},
                              {QStringLiteral("ban_until_ms"), result->banUntilMs}});
    else
        printLine(resultText(penalty, user, *result));
    return ExitOk;
}

} // namespace

int refundCommand(Cli& cli, const QStringList& args)
{
    return run(cli, args, false);
}

int penalizeCommand(Cli& cli, const QStringList& args)
{
    return run(cli, args, true);
}

} // namespace tollgate::ctl
