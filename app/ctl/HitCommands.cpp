// hit and peek: one hit.lua call against the action's stored policy.
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "core/http/RateLimitHeaders.h"
#include "core/keys/IdText.h"

#include "core/limiter/Limiter.h"
#include "core/policies/PolicyStore.h"

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
    parser.addOption(QCommandLineOption(
        QStringLiteral("on-error"),
        QStringLiteral("When Redis cannot answer (unreachable, timeout): allow or deny, saying so "
                       "(default: the policy's on_error, else exit 3)."),
        QStringLiteral("allow|deny")));
    parser.addOption(QCommandLineOption(
        QStringLiteral("headers"),
        QStringLiteral("Also print the HTTP RateLimit-Policy, RateLimit and Retry-After fields "
                       "(draft-ietf-httpapi-ratelimit-headers) for this result.")));
    if (auto exit = parseArguments(parser, args, 2, 2))
        return *exit;
    std::optional<FailureMode> onError;
    if (parser.isSet(QStringLiteral("on-error"))) {
        onError = failureModeFromName(parser.value(QStringLiteral("on-error")).toUtf8());
        // An insurance limiter counts across hits: a one-shot process has none to count in.
        if (onError != FailureMode::FailOpen && onError != FailureMode::FailClosed)
            return usage(QStringLiteral("--on-error must be allow or deny (the insurance limiter "
                                        "needs a long-running process: see docs/CLI.md)"));
    }
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
    Limiter limiter(client, cli.schema());
    if (onError)
        limiter.setFailureMode(*onError);
    Result<HitResult> hit = Error{};
    if (policy) {
        hit = waitFor<HitResult>([&](Callback<HitResult> done) {
            if (count)
                limiter.hit(*policy, user, *cost, nullptr, done);
            else
                limiter.peek(*policy, user, *cost, nullptr, done);
        });
    } else {
        // Without Redis there is no stored policy either: only the caller's --on-error applies.
        Policy unknown;
        unknown.action = action;
        hit = Limiter::answerWithoutRedis(onError.value_or(FailureMode::Report), nullptr, unknown,
                                          user, *cost, count, policy.error());
    }
    if (!hit)
        return fail(hit.error());
    if (hit->decidedBy != DecidedBy::Redis)
        warn(QStringLiteral("Redis did not answer (%1); decided by %2")
                 .arg(hit->redisError, decidedByName(hit->decidedBy)));
    // Only a policy Redis answered with has windows to announce.
    const bool headers = parser.isSet(QStringLiteral("headers")) && policy;
    const RateLimitHeaders fields = headers ? rateLimitHeaders(*policy, *hit) : RateLimitHeaders{};
    if (cli.json) {
        QJsonObject object = toJson(*hit);
        if (headers) {
            QJsonObject values{{QStringLiteral("RateLimit-Policy"), QString::fromLatin1(fields.policy)},
                               {QStringLiteral("RateLimit"), QString::fromLatin1(fields.rateLimit)}};
            if (!fields.retryAfter.isEmpty())
                values.insert(QStringLiteral("Retry-After"), QString::fromLatin1(fields.retryAfter));
            object.insert(QStringLiteral("headers"), values);
        }
        printJson(object);
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
        if (hit->appliedOverride != AppliedOverride::None)
            line += QStringLiteral("  override ") + appliedOverrideName(hit->appliedOverride);
        if (hit->decidedBy != DecidedBy::Redis)
            line += QStringLiteral("  decided by ") + decidedByName(hit->decidedBy);
        if (hit->shadow)
            line += hit->wouldBan     ? QStringLiteral("  shadow: enforcing would deny and ban")
                    : hit->wouldDeny() ? QStringLiteral("  shadow: enforcing would deny")
                                       : QStringLiteral("  shadow");
        printLine(line);
        if (!hit->allowed && !hit->message.isEmpty())
            printLine(hit->message);
        if (headers)
            for (const QByteArray& field : fields.toHttp().split('\n'))
                printLine(QString::fromLatin1(field.trimmed()));
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
