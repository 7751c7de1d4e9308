// hit and peek: one hit.lua call against the action's stored policy.
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "core/limits/IdText.h"

#include "core/limits/Limiter.h"
#include "core/limits/PolicyStore.h"

namespace tollgate::ctl {

namespace {

int run(Cli& cli, const QStringList& args, bool count)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
    parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
    parser.addOption(QCommandLineOption(QStringLiteral("cost"),
                                        QStringLiteral("Units this hit costs (default: the policy's)."),
                                        QStringLiteral("n")));
    if (auto exit = parseArguments(parser, args, 2, 2))
        return *exit;
    auto cost = integerOption(parser, QStringLiteral("cost"), 0);
    if (cost && parser.isSet(QStringLiteral("cost")) && *cost < 1)
        cost = Error{ErrorKind::InvalidInput, QStringLiteral("--cost must be 1 or more")};
    if (!cost)
        return fail(cost.error());
    const QByteArray action = idFromText(parser.positionalArguments().at(0));
    const QByteArray user = idFromText(parser.positionalArguments().at(1));
    const Status validUser = KeySchema::validateId(user, QStringLiteral("user id"));
    if (!validUser)
        return fail(validUser.error());

    Client* client = cli.client();
    if (!client)
        return ExitUsage;
    auto policy = waitFor<Policy>(
        [&](Callback<Policy> done) { PolicyStore(client, cli.schema()).get(action, nullptr, done); });
    if (!policy)
        return fail(policy.error());
    const Limiter limiter(client, cli.schema());
    auto hit = waitFor<HitResult>([&](Callback<HitResult> done) {
        if (count)
            limiter.hit(*policy, user, *cost, nullptr, done);
        else
            limiter.peek(*policy, user, *cost, nullptr, done);
    });
    if (!hit)
        return fail(hit.error());
    if (cli.json) {
        printJson(toJson(*hit));
    } else {
        QString line = QStringLiteral("%1  tier %2  %3/%4  remaining %5  reset in %6")
                           .arg(hit->allowed ? QStringLiteral("allowed") : QStringLiteral("denied"),
                                tierName(hit->tier))
                           .arg(hit->count)
                           .arg(hit->limit)
                           .arg(hit->remaining)
                           .arg(humanMs(hit->resetMs));
        if (!hit->allowed)
            line += QStringLiteral("  retry after ") + humanMs(hit->retryAfterMs);
        printLine(line);
        if (!hit->allowed && !hit->message.isEmpty())
            printLine(hit->message);
    }
    return hit->allowed ? ExitOk : ExitDenied;
}

} // namespace

int hitCommand(Cli& cli, const QStringList& args)
{
    return run(cli, args, true);
}

int peekCommand(Cli& cli, const QStringList& args)
{
    return run(cli, args, false);
}

} // namespace tollgate::ctl
