#include "core/limits/Limiter.h"

#include "core/limits/ZoneOffsets.h"
#include "core/scripts/ScriptRunner.h"

namespace tollgate {

Result<HitResult> Limiter::answerWithoutRedis(FailureMode mode, InsuranceLimiter* insurance,
                                              const Policy& policy, const QByteArray& user,
                                              qint64 cost, bool count, const Error& error)
{
    if (mode == FailureMode::Report || !isUnavailable(error))
        return error;
    HitResult hit;
    switch (mode) {
    case FailureMode::FailOpen:
        hit.allowed = true;
        hit.decidedBy = DecidedBy::FailOpen;
        break;
    case FailureMode::FailClosed:
        hit.allowed = false;
        hit.tier = Tier::Deny;
        hit.decidedBy = DecidedBy::FailClosed;
        break;
    case FailureMode::Report:
    case FailureMode::Insurance:
        hit = insurance->hit(policy, user, cost, count);
        break;
    }
    hit.redisError = error.toString();
    if (!hit.allowed)
        hit.message = policy.message;
    return hit;
}

void Limiter::setFailureMode(FailureMode mode, std::shared_ptr<InsuranceLimiter> insurance)
{
    m_onError = mode;
    m_insurance = std::move(insurance);
}

Limiter::Limiter(Client* client, KeySchema schema) : m_client(client), m_schema(std::move(schema))
{
}

void Limiter::hit(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
                  Callback<HitResult> done) const
{
    run(QByteArrayLiteral("hit"), policy, user, cost, context, std::move(done));
}

void Limiter::peek(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
                   Callback<HitResult> done) const
{
    run(QByteArrayLiteral("peek"), policy, user, cost, context, std::move(done));
}

void Limiter::run(const QByteArray& mode, const Policy& policy, const QByteArray& user, qint64 cost,
                  Context context, Callback<HitResult> done) const
{
    Status valid = KeySchema::validateId(user, QStringLiteral("user id"));
    if (valid)
        valid = policy.validate();
    if (valid && (cost < 0 || cost > Policy::kMaxLimit))
        valid = Error{ErrorKind::InvalidInput,
                      QStringLiteral("cost must be between 1 and %1").arg(Policy::kMaxLimit)};
    // The zone's UTC offsets only when the script needs local time; "0" keeps the common hit short.
    Result<QByteArray> offsets = policy.needsLocalTime()
                                     ? zoneOffsetsAroundNow(policy.timeZone)
                                     : Result<QByteArray>(QByteArrayLiteral("0"));
    if (valid && !offsets)
        valid = offsets.error();
    if (rejected(valid, context, done))
        return;

    // KEYS[4]: hit.lua writes an automatic ban's global audit entry itself, atomically.
    Command keys{m_schema.userBanKey(user), m_schema.actionBanKey(user, policy.action),
                 m_schema.userAuditKey(user), m_schema.auditKey()};
    Command args{mode,
                 algorithmName(policy.algorithm),
                 QByteArray::number(cost > 0 ? cost : policy.cost),
                 policy.countDenied ? QByteArrayLiteral("1") : QByteArrayLiteral("0"),
                 QByteArray::number(policy.warn),
                 QByteArray::number(policy.banMs),
                 policy.banUntilMidnight ? QByteArrayLiteral("midnight") : QByteArray(),
                 *offsets,
                 user,
                 policy.action,
                 m_schema.eventsChannel(),
                 policy.calendarAligned ? QByteArrayLiteral("calendar")
                                        : QByteArrayLiteral("first_hit")};
    for (const WindowLimit& w : policy.windows) {
        keys << m_schema.stateKey(user, policy.action, policy.algorithm, w.windowMs);
        args << QByteArray::number(w.limit) << QByteArray::number(w.windowMs);
    }
    const QString message = policy.message;
    Client* client = m_client;
    const bool recordStats = m_recordStats && mode == "hit";
    const QByteArray statsKey = m_schema.statsKey(policy.action);
    const QByteArray costArg = args[2];
    const FailureMode onError = m_onError.value_or(policy.onError);
    std::shared_ptr<InsuranceLimiter> insurance =
        onError != FailureMode::Insurance ? nullptr
        : m_insurance                     ? m_insurance
                                          : InsuranceLimiter::shared();
    // A peek writes nothing: EVALSHA_RO lets a read-only ACL user run it.
    const auto runner = mode == "peek" ? runReadOnlyScript : runScript;
    runner(m_client, QStringLiteral("hit"), keys, args, nullptr, [=](Result<Reply> reply) {
        if (!reply) {
            deliver(context, done,
                    answerWithoutRedis(onError, insurance.get(), policy, user, cost, mode == "hit",
                                       reply.error()));
            return;
        }
        auto hit = HitResult::fromReply(*reply);
        if (hit && !hit->allowed)
            hit->message = message;
        if (hit && recordStats)
            runScript(client, QStringLiteral("stats"), {statsKey},
                      {tierName(hit->tier).toUtf8(), costArg}, nullptr,
                      [](const Result<Reply>&) {});
        deliver(context, done, std::move(hit));
    });
}

} // namespace tollgate
