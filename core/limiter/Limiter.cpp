#include "tollgate/Limiter.h"

#include "core/client/ClientInternals.h"
#include "core/limiter/HitStats.h"
#include "core/limiter/OverrideTargets.h"
#include "core/limiter/PreparedHit.h"
#include "core/scripts/ScriptRunner.h"
#include "tollgate/Overrides.h"
#include "tollgate/RefusalCache.h"

#include <algorithm>
#include <optional>

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
    // A shadow policy denies nobody, not even when Redis is away: the would-be answer stays.
    if (policy.shadow && count) {
        hit.shadow = true;
        hit.allowed = true;
    }
    if (!hit.allowed)
        hit.message = policy.message;
    return hit;
}

void Limiter::setFailureMode(FailureMode mode, std::shared_ptr<InsuranceLimiter> insurance)
{
    m_onError = mode;
    m_insurance = std::move(insurance);
}

// One prepared command per action, replaced when the policy changes.
struct Limiter::PreparedCache
{
    static constexpr size_t kMaxPolicies = 256;
    QMutex mutex;
    std::vector<std::shared_ptr<const PreparedHit>> entries;
};

Limiter::Limiter(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema)), m_prepared(std::make_shared<PreparedCache>()),
      m_overrideTargets(std::make_shared<OverrideTargets>())
{
}

void Limiter::setRefusalCache(std::shared_ptr<RefusalCache> cache)
{
    m_refusals = std::move(cache);
}

void Limiter::setRecordStats(bool on)
{
    m_stats = on ? HitStats::of(m_client, m_schema) : nullptr;
}

void Limiter::hit(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
                  Callback<HitResult> done) const
{
    run(false, policy, user, cost, context, std::move(done));
}

void Limiter::peek(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
                   Callback<HitResult> done) const
{
    run(true, policy, user, cost, context, std::move(done));
}

Result<std::shared_ptr<const PreparedHit>> Limiter::prepared(const Policy& policy,
                                                             bool cluster) const
{
    QMutexLocker lock(&m_prepared->mutex);
    auto& entries = m_prepared->entries;
    auto same = std::find_if(entries.begin(), entries.end(), [&](const auto& entry) {
        return entry->policy().action == policy.action;
    });
    if (same != entries.end() && (*same)->preparedFrom(policy, cluster))
        return *same;
    auto fresh = PreparedHit::prepare(policy, KeyLayout(m_schema, cluster));
    if (!fresh)
        return fresh;
    if (same != entries.end())
        *same = *fresh;
    else if (entries.size() < PreparedCache::kMaxPolicies)
        entries.push_back(*fresh);
    return fresh;
}

namespace {

// The one callback of a hit: turns hit.lua's reply (or Redis' failure) into the caller's
// answer on the worker thread and posts it to the caller's context. On NOSCRIPT it loads the
// script and sends the same command once more.
struct HitReplyHandler
{
    Client* client;
    std::shared_ptr<const PreparedHit> prepared;
    std::shared_ptr<const PreparedHit> base; // the policy's own, once redirected to an override's
    std::shared_ptr<OverrideTargets> targets;
    EncodedCommand command;
    QByteArray user;
    qint64 cost;
    bool peek;
    bool retried = false;
    int redirects = 0;
    FailureMode onError;
    std::shared_ptr<InsuranceLimiter> insurance;
    std::shared_ptr<HitStats> stats;
    std::shared_ptr<RefusalCache> refusals;
    Context context;
    Callback<HitResult> done;

    void operator()(Result<Reply> reply)
    {
        if (!reply && reply.error().kind == ErrorKind::NoScript && !retried) {
            HitReplyHandler again = *this;
            again.retried = true;
            const ScriptInfo* script = ScriptLibrary::instance().find(QStringLiteral("hit"));
            reloadAndRetry(client, *script, command, nullptr, std::move(again));
            return;
        }
        // The user's override has other windows than those sent (lua/README.md, "Overrides"):
        // the same hit again with the windows the script names. An override changed between
        // the two calls redirects once more; a third time is an error.
        if (!reply && reply.error().kind == ErrorKind::Redirect && redirects < 2) {
            const std::optional<Error> unsent = redirect(reply.error().message.toUtf8());
            if (!unsent)
                return;
            reply = *unsent; // e.g. override windows this policy's algorithm cannot hold
        }
        const Policy& policy = (base ? base : prepared)->policy();
        Result<HitResult> hit = reply
                                    ? HitResult::fromReply(*reply)
                                    : Limiter::answerWithoutRedis(onError, insurance.get(), policy,
                                                                  user, cost, !peek, reply.error());
        if (reply && hit) {
            if (!hit->allowed)
                hit->message = policy.message;
            if (stats)
                // hit.lua bans on every deny of a policy that bans (lua/README.md); a shadow
                // hit counts as "would deny" / "would ban" instead.
                stats->record(policy.action, hit->tier, cost > 0 ? cost : policy.cost,
                              policy.hasBan(), hit->shadow);
            if (refusals)
                refusals->remember(policy, user, cost, *hit);
        }
        if (!done)
            return;
        if (context.isNull()) {
            done(std::move(hit));
            return;
        }
        context.post(
            [done = std::move(done), hit = std::move(hit)]() mutable { done(std::move(hit)); });
    }

    // Sends the hit with the windows `target` names ("policy" or an override's); the error when
    // that cannot be prepared, for the caller.
    std::optional<Error> redirect(const QByteArray& target)
    {
        const std::shared_ptr<const PreparedHit> own = base ? base : prepared;
        const KeyLayout layout = own->layout();
        Result<std::shared_ptr<const PreparedHit>> next = own;
        if (target != "policy") {
            auto windows = overrideWindowsFromText(target);
            next = windows ? PreparedHit::prepareForOverride(own->policy(), *windows, layout)
                           : Result<std::shared_ptr<const PreparedHit>>(windows.error());
        }
        // The user's next hits go straight where this one is sent (the script checks it again).
        if (next && *next != own)
            targets->remember(own, user, *next);
        else
            targets->forget(own->policy().action, user);
        Result<EncodedCommand> again = next ? (*next)->command(peek, user, cost)
                                            : Result<EncodedCommand>(next.error());
        if (!again)
            return Error{again.error().kind, QStringLiteral("the override of user %1: %2")
                                                 .arg(QString::fromUtf8(user.left(200)),
                                                      again.error().message)};
        HitReplyHandler handler = *this;
        handler.base = own;
        handler.prepared = *next;
        handler.command = *again;
        handler.redirects = redirects + 1;
        ClientInternals::execute(*client, std::move(*again), nullptr, std::move(handler));
        return std::nullopt;
    }
};

} // namespace

void Limiter::run(bool peek, const Policy& policy, const QByteArray& user, qint64 cost,
                  Context context, Callback<HitResult> done) const
{
    if (m_client->isModeKnown()) {
        send(peek, policy, user, cost, std::move(context), std::move(done));
        return;
    }
    // The keys depend on the mode: a hit before the first connection waits for it.
    m_client->whenModeKnown(nullptr, [self = *this, peek, policy, user, cost, context, done] {
        self.send(peek, policy, user, cost, context, done);
    });
}

void Limiter::send(bool peek, const Policy& policy, const QByteArray& user, qint64 cost,
                   Context context, Callback<HitResult> done) const
{
    if (m_refusals && !peek) {
        if (std::optional<HitResult> known = m_refusals->answer(policy, user, cost)) {
            known->decidedBy = DecidedBy::Cache;
            if (m_stats) // a refusal repeated is still a denied hit (no new ban: none is made)
                m_stats->record(policy.action, known->tier, cost > 0 ? cost : policy.cost);
            deliver(context, done, Result<HitResult>(std::move(*known)));
            return;
        }
    }
    auto prepared = this->prepared(policy, m_client->keysInOneSlot());
    // A user last redirected to their override's windows: sent there at once.
    std::shared_ptr<const PreparedHit> base;
    if (prepared) {
        if (auto target = m_overrideTargets->find(*prepared, user)) {
            base = std::move(*prepared);
            prepared = std::move(target);
        }
    }
    Result<EncodedCommand> command = prepared ? (*prepared)->command(peek, user, cost)
                                              : Result<EncodedCommand>(prepared.error());
    if (!command) {
        deliver(context, done, Result<HitResult>(command.error()));
        return;
    }
    const FailureMode onError = m_onError.value_or(policy.onError);
    std::shared_ptr<InsuranceLimiter> insurance = onError != FailureMode::Insurance ? nullptr
                                                  : m_insurance                     ? m_insurance
                                                                : InsuranceLimiter::shared();
    m_client->addScriptWork(estimatedScriptWork((*prepared)->keyCount()));
    // A peek writes nothing: EVALSHA_RO lets a read-only ACL user run it.
    EncodedCommand sent = *command;
    ClientInternals::execute(*m_client, std::move(sent), nullptr,
                             HitReplyHandler{m_client, std::move(*prepared), std::move(base),
                                             m_overrideTargets, std::move(*command), user, cost,
                                             peek, false, 0, onError, std::move(insurance),
                                             peek ? nullptr : m_stats, peek ? nullptr : m_refusals,
                                             std::move(context), std::move(done)});
}

} // namespace tollgate
