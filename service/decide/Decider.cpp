#include "service/decide/Decider.h"

#include "service/decide/DecisionDeadlines.h"
#include "service/decide/DescriptorMatch.h"
#include "service/decide/DynamicMetadata.h"

#include <QDateTime>
#include <QMutexLocker>
#include <set>

namespace tollgate::service {

namespace detail {

// One descriptor's limit to weigh: a hit to make, or a refusal known without Redis.
struct Job
{
    enum class Kind
    {
        Hit,
        Check,    // hits_addend 0: what the window holds, nothing counted
        Zero,     // requests_per_unit 0: refused, nothing counted
        Oversized // a cost above any limit: refused, nothing counted
    };
    size_t index = 0;
    Kind kind = Kind::Hit;
    Policy policy;
    QByteArray user;
    qint64 cost = 1;
    RateLimitSpec spec;
    bool shadow = false;
    const DescriptorRule* rule = nullptr; // the configured limit; null: the request's own
};

// A hit sent for one descriptor, until its answer is in.
struct Sent
{
    size_t index = 0;
    RateLimitSpec spec;
    qint64 cost = 1;
    bool check = false;
    bool answered = false;
};

// A request's hits in flight; the last reply completes the decision, or its deadline does
// (DecisionDeadlines) with the failure policy's answer for those still out.
struct Pending : Watched
{
    QMutex mutex; // the decision, the hits sent and `settled`
    Decision decision;
    std::optional<Error> error;
    std::vector<Sent> sent;
    size_t left = 0;
    bool settled = false; // answered: what comes later changes nothing
    std::function<void(Result<Decision>)> done;
    QByteArray domain;
    std::function<void(const QByteArray&, const QByteArray&, const char*)> countDescriptor;
    std::optional<DecisionRequest> request; // kept when the answer carries dynamic metadata
};

} // namespace detail

namespace {

using detail::Job;
using detail::Pending;
using detail::Sent;

bool isCalendarUnit(LimitUnit unit)
{
    return unit == LimitUnit::Minute || unit == LimitUnit::Hour || unit == LimitUnit::Day ||
           unit == LimitUnit::Week;
}

// The limit a request sends with a descriptor: a policy of its own (never stored), counted apart
// from the configured one: "<action>~<n>/<unit>".
Policy requestPolicy(const QByteArray& base, const RateLimitSpec& spec)
{
    Policy policy;
    policy.action = base + '~' + QByteArray::number(spec.requestsPerUnit) + '/' +
                    unitName(spec.unit).toUtf8();
    policy.windows = {{std::max<qint64>(spec.requestsPerUnit, 1), unitMs(spec.unit)}};
    policy.calendarAligned = isCalendarUnit(spec.unit);
    return policy;
}

// The limit to report: the policy's own window when it has one, else the rule's unit.
RateLimitSpec reported(RateLimitSpec spec, const Policy& policy, const HitResult& hit)
{
    spec.requestsPerUnit = hit.limit;
    if (policy.windows.size() == 1) {
        const LimitUnit unit = unitOfWindow(policy.windows.front().windowMs);
        if (unit != LimitUnit::Unknown)
            spec.unit = unit;
    }
    return spec;
}

// Whether `a` says less may pass than `b`: a refusal first (the longest), then the fewest left.
bool moreRestrictive(const HitResult& a, const HitResult& b)
{
    if (a.allowed != b.allowed)
        return !a.allowed;
    if (!a.allowed)
        return a.retryAfterMs < 0 || (b.retryAfterMs >= 0 && a.retryAfterMs > b.retryAfterMs);
    return a.remaining < b.remaining;
}

// envoyproxy/ratelimit's rule: over limit when any limit is that is not in quota_mode, or when
// every quota_mode limit is.
Code overallCode(const std::vector<DescriptorDecision>& statuses)
{
    int refused = 0, quotas = 0, quotasRefused = 0;
    for (const DescriptorDecision& status : statuses) {
        const bool over = status.code == Code::OverLimit;
        if (status.quotaMode) {
            ++quotas;
            quotasRefused += over ? 1 : 0;
        } else if (over) {
            ++refused;
        }
    }
    return refused > 0 || (quotas > 0 && quotas == quotasRefused) ? Code::OverLimit : Code::Ok;
}

// What envoyproxy/ratelimit answers for the time left: to the end of the unit since the epoch.
qint64 untilUnitEnds(LimitUnit unit)
{
    const qint64 length = unitMs(unit);
    return length > 0 ? length - QDateTime::currentMSecsSinceEpoch() % length : 0;
}

// One hit's answer into its descriptor's status (under the pending's mutex).
void settle(Pending& pending, const Sent& sent, Result<HitResult> hit)
{
    if (!hit) {
        if (!pending.error)
            pending.error = hit.error();
        return;
    }
    DescriptorDecision& status = pending.decision.statuses[sent.index];
    // A check is over when the window already holds more than the limit (a window exactly full
    // still passes a hit of 0, as envoyproxy/ratelimit's).
    const bool peeked = sent.check && hit->countNow >= 0;
    const bool allowed = hit->shadow || (peeked ? hit->tier != Tier::Banned && hit->countNow <= hit->limit
                                                : hit->allowed);
    status.code = allowed ? Code::Ok : Code::OverLimit;
    status.limitRemaining = !allowed ? 0
                            : peeked ? std::max<qint64>(hit->limit - hit->countNow, 0)
                                     : hit->remaining;
    status.durationUntilResetMs = hit->allowed ? hit->resetMs : std::max(hit->resetMs, hit->retryAfterMs);
    if (status.durationUntilResetMs <= 0)
        status.durationUntilResetMs = untilUnitEnds(sent.spec.unit);
    status.currentLimit = reported(sent.spec, *status.policy, *hit);
    if (hit->decidedBy != DecidedBy::Cache)
        ++pending.decision.redisCalls;
    status.hit = std::move(*hit);
}

// The failure policy's answer for a hit still out at its decision's deadline, as the Limiter
// gives it when the command's own deadline passes, except that the insurance limiter only
// evaluates it here: that answer is still to come, and counts it.
Result<HitResult> lateAnswer(FailureMode mode, const Policy& policy, const QByteArray& user,
                             const Sent& sent)
{
    const Error late{ErrorKind::Timeout,
                     QStringLiteral("no answer from Redis by the decision's deadline")};
    InsuranceLimiter* insurance =
        mode == FailureMode::Insurance ? InsuranceLimiter::shared().get() : nullptr;
    const bool counts = !sent.check && mode != FailureMode::Insurance;
    Result<HitResult> hit =
        Limiter::answerWithoutRedis(mode, insurance, policy, user, sent.cost, counts, late);
    if (hit && !sent.check && !counts && policy.shadow) { // as a counted shadow hit is answered
        hit->shadow = true;
        hit->allowed = true;
        hit->message.clear();
    }
    return hit;
}

void finish(const std::shared_ptr<Pending>& pending)
{
    if (pending->error) {
        pending->done(*pending->error);
        return;
    }
    Decision& decision = pending->decision;
    decision.overall = overallCode(decision.statuses);
    if (pending->request)
        decision.dynamicMetadata = dynamicMetadata(*pending->request, decision.statuses);
    for (const DescriptorDecision& status : decision.statuses) {
        if (pending->countDescriptor && !status.metricName.isEmpty())
            pending->countDescriptor(pending->domain, status.metricName,
                                     status.code == Code::OverLimit           ? "over_limit"
                                     : status.hit && status.hit->wouldDeny() ? "shadow_over_limit"
                                                                              : "ok");
        if (status.hit &&
            (!decision.headline || moreRestrictive(*status.hit, *decision.headline))) {
            decision.headline = status.hit;
            decision.headlinePolicy = status.policy;
        }
    }
    pending->done(std::move(decision));
}

// A hit's answer; the last one finishes the decision, unless its deadline came first.
void hitAnswered(const std::shared_ptr<Pending>& pending, size_t k, Result<HitResult> hit,
                 DecisionDeadlines* deadlines)
{
    {
        QMutexLocker lock(&pending->mutex);
        Sent& sent = pending->sent[k];
        if (pending->settled || sent.answered)
            return;
        sent.answered = true;
        settle(*pending, sent, std::move(hit));
        if (--pending->left > 0)
            return;
        pending->settled = true;
    }
    if (deadlines)
        deadlines->forget(*pending);
    finish(pending);
}

// The decision's deadline: every hit still out gets the failure policy's answer now.
void expire(const std::shared_ptr<Pending>& pending, std::optional<FailureMode> onError)
{
    {
        QMutexLocker lock(&pending->mutex);
        if (pending->settled)
            return;
        pending->settled = true;
        pending->decision.atDeadline = true;
        for (Sent& sent : pending->sent) {
            if (sent.answered)
                continue;
            sent.answered = true;
            const DescriptorDecision& status = pending->decision.statuses[sent.index];
            settle(*pending, sent,
                   lateAnswer(onError.value_or(status.policy->onError), *status.policy,
                              status.user, sent));
        }
    }
    finish(pending);
}

Error invalid(const QString& message)
{
    return Error{ErrorKind::InvalidInput, message};
}

} // namespace

Decider::Decider(Limiter limiter, std::shared_ptr<const ServiceConfig> config,
                 std::shared_ptr<PolicyBook> policies)
    : m_limiter(std::move(limiter)), m_policies(std::move(policies)), m_config(std::move(config))
{
}

void Decider::setConfig(std::shared_ptr<const ServiceConfig> config)
{
    QMutexLocker lock(&m_mutex);
    m_config = std::move(config);
}

std::shared_ptr<const ServiceConfig> Decider::config() const
{
    QMutexLocker lock(&m_mutex);
    return m_config;
}

void Decider::setDeadline(std::chrono::milliseconds timeout, std::optional<FailureMode> onError,
                          std::function<void(double lateSeconds)> late)
{
    DecisionDeadlines::Late lateness;
    if (late)
        lateness = [late = std::move(late)](Watched::Clock::duration by) {
            late(std::chrono::duration<double>(by).count());
        };
    m_deadlines = std::make_shared<DecisionDeadlines>(
        timeout,
        [onError](const std::shared_ptr<Watched>& item) {
            expire(std::static_pointer_cast<Pending>(item), onError);
        },
        std::move(lateness));
}

void Decider::setUnmatchedCounter(std::function<void(const QByteArray& domain)> count)
{
    QMutexLocker lock(&m_mutex);
    m_unmatched = std::move(count);
}

void Decider::setDescriptorCounter(
    std::function<void(const QByteArray&, const QByteArray&, const char*)> count)
{
    QMutexLocker lock(&m_mutex);
    m_descriptors = std::move(count);
}

void Decider::decide(const DecisionRequest& request,
                     std::function<void(Result<Decision>)> done) const
{
    if (request.domain.isEmpty()) {
        done(invalid(QStringLiteral("the rate limit domain must not be empty")));
        return;
    }
    if (request.descriptors.empty()) {
        done(invalid(QStringLiteral("the request has no descriptors")));
        return;
    }
    const Watched::Clock::time_point started = Watched::Clock::now();
    auto pending = std::make_shared<Pending>();
    pending->domain = request.domain;
    pending->done = std::move(done);
    std::vector<Job> jobs;
    if (std::optional<Error> bad = plan(request, *pending, jobs)) {
        pending->done(std::move(*bad));
        return;
    }
    send(std::move(jobs), pending, started);
}

std::optional<Error> Decider::plan(const DecisionRequest& request, Pending& pending,
                                   std::vector<Job>& jobs) const
{
    std::shared_ptr<const ServiceConfig> config;
    std::function<void(const QByteArray&)> unmatched;
    {
        QMutexLocker lock(&m_mutex);
        config = m_config;
        unmatched = m_unmatched;
        pending.countDescriptor = m_descriptors;
    }
    const DomainConfig* domain = config ? config->domain(request.domain) : nullptr;
    const PolicyBook::Snapshot policies = m_policies->current();

    pending.decision.statuses.resize(request.descriptors.size());
    std::set<QString> replaced;
    bool withMetadata = false;
    for (size_t i = 0; i < request.descriptors.size(); ++i) {
        const RequestDescriptor& descriptor = request.descriptors[i];
        DescriptorDecision& status = pending.decision.statuses[i];
        if (!domain) { // an unknown domain limits nothing, not even with a limit of its own
            status.unmatched = true;
            if (unmatched)
                unmatched(request.domain);
            continue;
        }
        const quint64 addend =
            descriptor.hitsAddend.value_or(std::max<quint64>(request.hitsAddend, 1));
        const DescriptorMatch match = matchDescriptor(*domain, descriptor);
        const DescriptorRule* rule = match.rule;
        if (rule) {
            status.metricName =
                request.domain + '.' + (rule->detailedMetric ? match.path : match.metricPath);
            replaced.insert(rule->replaces.begin(), rule->replaces.end());
            withMetadata = withMetadata || rule->quotaMode || !rule->metadata.isEmpty();
        }
        Job job;
        job.index = i;
        job.user = match.user;
        job.cost = qint64(std::min<quint64>(addend, quint64(Policy::kMaxLimit)));
        job.kind = addend == 0 ? Job::Kind::Check : Job::Kind::Hit;
        if (descriptor.limit) {
            if (descriptor.limit->unit == LimitUnit::Unknown)
                return invalid(QStringLiteral("descriptor %1: the limit's unit is unknown").arg(i));
            QByteArray base = rule && rule->limits() ? rule->action : request.domain;
            if (!rule || !rule->limits()) { // no configured limit: every value tuple its own
                for (const RequestEntry& entry : descriptor.entries)
                    base += '.' + entry.key;
                job.user = subjectOfValues(descriptor);
            }
            job.policy = requestPolicy(base, *descriptor.limit);
            job.spec = *descriptor.limit;
        } else if (!rule) {
            status.unmatched = true;
            if (unmatched)
                unmatched(request.domain);
            continue;
        } else if (rule->unlimited) {
            status.limitRemaining = kUnlimitedRemaining;
            continue;
        } else if (!rule->limits()) {
            continue;
        } else {
            job.rule = rule;
            job.spec = *rule->rateLimit;
            job.shadow = rule->shadow;
            const auto stored = policies->constFind(rule->action);
            const Policy* configured = config->policy(rule->action);
            if (stored == policies->cend() && !configured)
                continue;
            job.policy = stored != policies->cend() ? *stored : *configured;
        }
        status.currentLimit = job.spec;
        if (job.spec.requestsPerUnit == 0)
            job.kind = Job::Kind::Zero;
        else if (addend > quint64(Policy::kMaxLimit))
            job.kind = Job::Kind::Oversized;
        jobs.push_back(std::move(job));
    }
    // A limit named in another matched limit's `replaces` does not apply (a 0 limit included).
    jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                              [&](const Job& job) {
                                  const bool gone = job.rule && !job.rule->rateLimit->name.isEmpty() &&
                                                    replaced.count(job.rule->rateLimit->name);
                                  if (gone)
                                      pending.decision.statuses[job.index].currentLimit.reset();
                                  return gone;
                              }),
               jobs.end());
    for (Job& job : jobs) {
        DescriptorDecision& status = pending.decision.statuses[job.index];
        if (job.rule) {
            status.quotaMode = job.rule->quotaMode;
            status.metadata = job.rule->metadata;
        }
        if (job.kind == Job::Kind::Zero || job.kind == Job::Kind::Oversized) {
            // Refused without Redis, as envoyproxy/ratelimit's count would refuse it.
            status.code = job.shadow ? Code::Ok : Code::OverLimit;
            status.durationUntilResetMs = untilUnitEnds(job.spec.unit);
        }
    }
    jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                              [](const Job& job) {
                                  return job.kind == Job::Kind::Zero ||
                                         job.kind == Job::Kind::Oversized;
                              }),
               jobs.end());
    if (withMetadata)
        pending.request = request;
    return std::nullopt;
}

void Decider::send(std::vector<Job> jobs, const std::shared_ptr<Pending>& pending,
                   Watched::Clock::time_point started) const
{
    if (jobs.empty()) {
        finish(pending);
        return;
    }
    pending->left = jobs.size();
    pending->sent.reserve(jobs.size());
    for (Job& job : jobs) { // every status made before the first hit can answer
        DescriptorDecision& status = pending->decision.statuses[job.index];
        status.action = job.policy.action;
        status.user = job.user;
        status.policy = std::move(job.policy);
        pending->sent.push_back({job.index, job.spec, job.cost, job.kind == Job::Kind::Check});
    }
    const std::shared_ptr<DecisionDeadlines> deadlines = m_deadlines;
    for (size_t k = 0; k < pending->sent.size(); ++k) {
        // The policy stays in the status, which outlives the call.
        const Sent& sent = pending->sent[k];
        const DescriptorDecision& status = pending->decision.statuses[sent.index];
        auto onHit = [pending, k, deadlines](Result<HitResult> hit) {
            hitAnswered(pending, k, std::move(hit), deadlines.get());
        };
        if (sent.check)
            m_limiter.peek(*status.policy, status.user, 0, nullptr, std::move(onHit));
        else
            m_limiter.hit(*status.policy, status.user, sent.cost, nullptr, std::move(onHit));
    }
    // Watched only now, so that its deadline never finishes it while hits are still being sent.
    QMutexLocker lock(&pending->mutex);
    if (deadlines && !pending->settled)
        deadlines->watch(pending, started);
}

} // namespace tollgate::service
