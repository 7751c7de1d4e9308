// hit and peek: one hit.lua call against the action's stored policy.
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "core/http/RateLimitHeaders.h"
#include "core/keys/IdText.h"

#include "tollgate/Limiter.h"
#include "tollgate/PolicyStore.h"

namespace tollgate::ctl {

namespace {

class HitCommand final : public CostedCommand
{
public:
    explicit HitCommand(bool count)
        : CostedCommand(QStringLiteral("Units this hit costs (default: the policy's).")),
          m_count(count)
    {
        parser.addOption(QCommandLineOption(
            QStringLiteral("on-error"),
            QStringLiteral(
                "When Redis cannot answer (unreachable, timeout): allow or deny, saying so "
                "(default: the policy's on_error, else exit 3)."),
            QStringLiteral("allow|deny")));
        parser.addOption(QCommandLineOption(
            QStringLiteral("headers"),
            QStringLiteral("Also print the HTTP RateLimit-Policy, RateLimit and Retry-After fields "
                           "(draft-ietf-httpapi-ratelimit-headers) for this result.")));
    }

private:
    Status check() override
    {
        if (isSet("on-error")) {
            m_onError = failureModeFromName(value("on-error").toUtf8());
            // An insurance limiter counts across hits: a one-shot process has none to count in.
            if (m_onError != FailureMode::FailOpen && m_onError != FailureMode::FailClosed)
                return invalidInput(
                    QStringLiteral("--on-error must be allow or deny (the insurance "
                                   "limiter needs a long-running process: see docs/CLI.md)"));
        }
        return readCosted();
    }

    Result<int> execute() override
    {
        auto policy = waitFor<Policy>([&](Callback<Policy> done) {
            PolicyStore(client(), schema()).get(m_action, nullptr, done);
        });
        Limiter limiter(client(), schema());
        if (m_onError)
            limiter.setFailureMode(*m_onError);
        Result<HitResult> hit = Error{};
        if (policy) {
            hit = waitFor<HitResult>([&](Callback<HitResult> done) {
                if (m_count)
                    limiter.hit(*policy, m_user, m_cost, nullptr, done);
                else
                    limiter.peek(*policy, m_user, m_cost, nullptr, done);
            });
        } else {
            // Without Redis there is no stored policy either: only the caller's --on-error applies.
            Policy unknown;
            unknown.action = m_action;
            hit = Limiter::answerWithoutRedis(m_onError.value_or(FailureMode::Report), nullptr,
                                              unknown, m_user, m_cost, m_count,
                                              policy.error());
        }
        if (!hit)
            return hit.error();
        if (hit->decidedBy != DecidedBy::Redis)
            warn(QStringLiteral("Redis did not answer (%1); decided by %2")
                     .arg(hit->redisError, decidedByName(hit->decidedBy)));
        // Only a policy Redis answered with has windows to announce.
        const bool headers = isSet("headers") && policy;
        const RateLimitHeaders fields =
            headers ? rateLimitHeaders(*policy, *hit) : RateLimitHeaders{};
        if (json())
            printJson(hitJson(*hit, headers ? &fields : nullptr));
        else
            printText(*hit, headers ? &fields : nullptr);
        return hit->allowed ? ExitOk : ExitDenied;
    }

    static QJsonObject hitJson(const HitResult& hit, const RateLimitHeaders* fields)
    {
        QJsonObject object = toJson(hit);
        if (fields) {
            QJsonObject values{
                {QStringLiteral("RateLimit-Policy"), QString::fromLatin1(fields->policy)},
                {QStringLiteral("RateLimit"), QString::fromLatin1(fields->rateLimit)}};
            if (!fields->retryAfter.isEmpty())
                values.insert(QStringLiteral("Retry-After"),
                              QString::fromLatin1(fields->retryAfter));
            object.insert(QStringLiteral("headers"), values);
        }
        return object;
    }

    static void printText(const HitResult& hit, const RateLimitHeaders* fields)
    {
        QString line = QStringLiteral("%1  tier %2  %3/%4  remaining %5  reset in %6")
                           .arg(hit.allowed ? QStringLiteral("allowed") : QStringLiteral("denied"),
                                tierName(hit.tier))
                           .arg(hit.count)
                           .arg(hit.limit)
                           .arg(hit.remaining)
                           .arg(humanMs(hit.resetMs));
        if (!hit.allowed)
            line += QStringLiteral("  retry after ") + humanMs(hit.retryAfterMs);
        if (hit.appliedOverride != AppliedOverride::None)
            line += QStringLiteral("  override ") + appliedOverrideName(hit.appliedOverride);
        if (hit.decidedBy != DecidedBy::Redis)
            line += QStringLiteral("  decided by ") + decidedByName(hit.decidedBy);
        if (hit.shadow)
            line += hit.wouldBan      ? QStringLiteral("  shadow: enforcing would deny and ban")
                    : hit.wouldDeny() ? QStringLiteral("  shadow: enforcing would deny")
                                      : QStringLiteral("  shadow");
        printLine(line);
        if (!hit.allowed && !hit.message.isEmpty())
            printLine(hit.message);
        if (fields)
            for (const QByteArray& field : fields->toHttp().split('\n'))
                printLine(QString::fromLatin1(field.trimmed()));
    }

    bool m_count;
    std::optional<FailureMode> m_onError;
};

} // namespace

int hitCommand(Cli& cli, const QStringList& args)
{
    return HitCommand(true).run(cli, args);
}

int peekCommand(Cli& cli, const QStringList& args)
{
    return HitCommand(false).run(cli, args);
}

} // namespace tollgate::ctl
