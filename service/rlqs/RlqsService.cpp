#include "service/rlqs/RlqsService.h"

#include "service/decide/Decider.h"
#include "service/rlqs/RlqsStream.h"

#include <algorithm>
#include <chrono>
#include <pthread.h>

namespace tollgate::service {

namespace {

constexpr auto kTick = std::chrono::milliseconds(100);
constexpr qint64 kAfterWindowEndMs = 20; // a window is pushed again just after it ends

qint64 steadyMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

QByteArray keyOf(const QByteArray& domain, const BucketId& id)
{
    return domain + '\0' + bucketIdText(id);
}

void setDuration(google::protobuf::Duration* out, qint64 ms)
{
    out->set_seconds(ms / 1000);
    out->set_nanos(int(ms % 1000) * 1'000'000);
}

rlqs::RateLimitQuotaResponse::BucketAction* actionFor(rlqs::RateLimitQuotaResponse& response,
                                                      const BucketId& id)
{
    auto* action = response.add_bucket_action();
    for (const auto& [key, value] : id)
        (*action->mutable_bucket_id()->mutable_bucket())[key] = value;
    return action;
}

void addAssignment(rlqs::RateLimitQuotaResponse& response, const BucketId& id, const Assignment& a)
{
    auto* assignment = actionFor(response, id)->mutable_quota_assignment_action();
    setDuration(assignment->mutable_assignment_time_to_live(), a.ttlMs);
    auto* strategy = assignment->mutable_rate_limit_strategy();
    switch (a.kind) {
    case Assignment::Kind::AllowAll:
        strategy->set_blanket_rule(envoy::type::v3::RateLimitStrategy::ALLOW_ALL);
        break;
    case Assignment::Kind::DenyAll:
        strategy->set_blanket_rule(envoy::type::v3::RateLimitStrategy::DENY_ALL);
        break;
    case Assignment::Kind::TokenBucket: {
        auto* bucket = strategy->mutable_token_bucket();
        bucket->set_max_tokens(quint32(a.maxTokens));
        bucket->mutable_tokens_per_fill()->set_value(quint32(a.tokensPerFill));
        setDuration(bucket->mutable_fill_interval(), a.fillIntervalMs);
        break;
    }
    }
}

} // namespace

RlqsService::RlqsService(Client* client, KeySchema schema, std::shared_ptr<const Decider> decider,
                         std::shared_ptr<PolicyBook> policies)
    : m_client(client), m_schema(std::move(schema)), m_decider(std::move(decider)),
      m_policies(std::move(policies)), m_guard(std::make_shared<Guard>())
{
    m_guard->service = this;
    {
        std::lock_guard lock(m_mutex);
        refreshConfigLocked();
    }
    m_thread = std::thread([this] {
        pthread_setname_np(pthread_self(), "rlqs");
        std::unique_lock lock(m_mutex);
        while (!m_stopping) {
            m_wake.wait_for(lock, kTick);
            if (m_stopping)
                break;
            lock.unlock();
            tick();
            lock.lock();
        }
    });
}

RlqsService::~RlqsService()
{
    stop();
    std::lock_guard lock(m_guard->mutex); // script replies from now on reach nothing
    m_guard->service = nullptr;
}

void RlqsService::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true; // deliver() starts no write from now on
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

Callback<std::vector<UsageState>> RlqsService::assigner(std::vector<QByteArray> keys, quint64 onlyStream)
{
    return [guard = m_guard, keys = std::move(keys), onlyStream](Result<std::vector<UsageState>> states) {
        std::lock_guard lock(guard->mutex);
        if (guard->service && states) // no answer on an error: the proxy's assignment runs out
            guard->service->assign(keys, *states, onlyStream);
    };
}

void RlqsService::serveOn(grpc::ServerCompletionQueue* queue)
{
    new RlqsStream(this, queue); // each accepted stream asks for the next
}

quint64 RlqsService::attach(RlqsStream* stream)
{
    std::lock_guard lock(m_mutex);
    const quint64 id = m_nextStream++;
    m_streams[id] = stream;
    return id;
}

void RlqsService::detach(quint64 stream)
{
    std::lock_guard lock(m_mutex);
    m_streams.erase(stream);
    for (auto it = m_buckets.begin(); it != m_buckets.end();) {
        it->second.subscribers.erase(stream);
        it = it->second.subscribers.empty() ? m_buckets.erase(it) : std::next(it);
    }
}

void RlqsService::onEvent(const LimitEvent& event)
{
    std::lock_guard lock(m_mutex);
    m_events.push_back(event);
}

const QuotaDomainSettings& RlqsService::settingsLocked(const QByteArray& domain)
{
    static const QuotaDomainSettings defaults;
    const auto found = m_settings.find(domain);
    return found == m_settings.end() ? defaults : found->second;
}

void RlqsService::refreshConfigLocked()
{
    m_config = m_decider->config();
    m_policySnapshot = m_policies->current();
    auto settings = loadQuotaSettings(*m_config);
    if (settings) // else the last good ones (the daemon refused a bad section at start)
        m_settings = std::move(*settings);
}

void RlqsService::report(quint64 stream, const QByteArray& domain,
                         const rlqs::RateLimitQuotaUsageReports& reports)
{
    std::vector<QByteArray> keys;
    std::vector<UsageItem> items;
    Responses blankets;
    {
        std::lock_guard lock(m_mutex);
        const auto policies = m_policySnapshot;
        const QuotaDomainSettings& settings = settingsLocked(domain);
        const qint64 now = steadyMs();
        for (const auto& usage : reports.bucket_quota_usages()) {
            BucketId id(usage.bucket_id().bucket().begin(), usage.bucket_id().bucket().end());
            if (id.empty())
                continue; // Envoy never sends one: no bucket to answer for
            const QByteArray key = keyOf(domain, id);
            auto [it, created] = m_buckets.try_emplace(key);
            Bucket& bucket = it->second;
            if (created) {
                bucket.domain = domain;
                bucket.id = id;
                bucket.target = mapBucket(*m_config, policies, domain, settings, id);
            }
            auto [sub, subscribed] = bucket.subscribers.try_emplace(stream);
            const qint64 allowed = qint64(std::min<quint64>(usage.num_requests_allowed(), Policy::kMaxLimit));
            const qint64 denied = qint64(std::min<quint64>(usage.num_requests_denied(), Policy::kMaxLimit));
            if (subscribed || allowed + denied > 0)
                sub->second.lastActiveMs = now;
            const qint64 elapsedMs = usage.time_elapsed().seconds() * 1000 + usage.time_elapsed().nanos() / 1'000'000;
            // A first report covers a moment (the request that made the bucket): not a rate.
            sub->second.usagePerMs = double(allowed) / double(std::max<qint64>(elapsedMs, 1000));
            sub->second.lastReportMs = now;
            if (bucket.target.kind == BucketTarget::Kind::Counted) {
                keys.push_back(key);
                items.push_back({bucket.target.policy, bucket.target.user, allowed, denied});
            } else {
                blanketLocked(bucket, stream, blankets);
            }
        }
    }
    deliver(std::move(blankets));
    addUsage(m_client, m_schema, std::move(items), assigner(std::move(keys), stream));
}

void RlqsService::blanketLocked(Bucket& bucket, quint64 stream, Responses& out)
{
    if (bucket.target.kind == BucketTarget::Kind::Unsupported)
        return; // the proxy's no_assignment_behavior decides
    Assignment a;
    a.kind = bucket.target.kind == BucketTarget::Kind::DenyAll ? Assignment::Kind::DenyAll
                                                                : Assignment::Kind::AllowAll;
    a.ttlMs = settingsLocked(bucket.domain).assignmentTtlMs;
    for (auto& [id, subscriber] : bucket.subscribers) {
        if (stream != 0 && id != stream)
            continue;
        subscriber.sent = a;
        addAssignment(out[id], bucket.id, a);
    }
}

void RlqsService::assign(const std::vector<QByteArray>& keys, const std::vector<UsageState>& states,
                         quint64 onlyStream)
{
    Responses out;
    {
        std::lock_guard lock(m_mutex);
        const qint64 now = steadyMs();
        for (size_t i = 0; i < keys.size() && i < states.size(); ++i) {
            const auto found = m_buckets.find(keys[i]);
            if (found == m_buckets.end())
                continue; // abandoned, or its streams are gone
            Bucket& bucket = found->second;
            const UsageState& state = states[i];
            const qint64 ttl = settingsLocked(bucket.domain).assignmentTtlMs;
            bucket.refreshAtMs = state.resetMs > 0 ? now + state.resetMs + kAfterWindowEndMs : 0;
            if (state.state == UsageState::State::Banned && state.banMs > 0)
                bucket.refreshAtMs = now + state.banMs + kAfterWindowEndMs;
            // What the proxies have let through since their last reports is not counted yet:
            // estimated at each one's last reported rate, it is not there to share.
            UsageState counted = state;
            double unreported = 0;
            for (const auto& [stream, subscriber] : bucket.subscribers)
                unreported += subscriber.usagePerMs * double(now - subscriber.lastReportMs);
            counted.remaining = std::max<qint64>(state.remaining - qint64(unreported), 0);
            Assignment a = assignmentFor(counted, bucket.target.policy,
                                         int(bucket.subscribers.size()), ttl);
            if (bucket.target.shadow && a.kind != Assignment::Kind::AllowAll) {
                a = Assignment{}; // counted, never denied
                a.ttlMs = ttl;
            }
            for (auto& [stream, subscriber] : bucket.subscribers) {
                if (onlyStream != 0 && stream != onlyStream)
                    continue;
                Assignment sent = a;
                if (subscriber.sent && a.kind == Assignment::Kind::TokenBucket &&
                    subscriber.sent->closeTo(a)) {
                    sent = *subscriber.sent; // the same strategy: the proxy keeps its tokens
                    sent.ttlMs = a.ttlMs;
                }
                subscriber.sent = sent;
                addAssignment(out[stream], bucket.id, sent);
            }
        }
    }
    deliver(std::move(out));
}

void RlqsService::refreshLocked(const std::vector<QByteArray>& keys, Responses& out,
                                Refresh& counted)
{
    for (const QByteArray& key : keys) {
        const auto found = m_buckets.find(key);
        if (found == m_buckets.end())
            continue;
        Bucket& bucket = found->second;
        if (bucket.target.kind == BucketTarget::Kind::Counted) {
            counted.keys.push_back(key);
            counted.items.push_back({bucket.target.policy, bucket.target.user, 0, 0});
        } else {
            blanketLocked(bucket, 0, out);
        }
    }
}

void RlqsService::refresh(Refresh counted)
{
    if (counted.items.empty())
        return;
    addUsage(m_client, m_schema, std::move(counted.items), assigner(std::move(counted.keys), 0));
}

void RlqsService::deliver(Responses responses)
{
    std::lock_guard lock(m_mutex);
    if (m_stopping)
        return; // the queue may be shut down: no write may be started on it
    for (auto& [stream, response] : responses) {
        const auto found = m_streams.find(stream);
        if (found != m_streams.end() && response.bucket_action_size() > 0)
            found->second->send(std::move(response));
    }
}

void RlqsService::tick()
{
    Responses out;
    Refresh counted;
    {
        std::lock_guard lock(m_mutex);
        const qint64 now = steadyMs();
        std::vector<QByteArray> due;
        // A new configuration or policies: every bucket is mapped and answered again.
        const bool changed = m_decider->config() != m_config || m_policies->current() != m_policySnapshot;
        if (changed) {
            refreshConfigLocked();
            const auto policies = m_policySnapshot;
            for (auto& [key, bucket] : m_buckets) {
                bucket.target = mapBucket(*m_config, policies, bucket.domain,
                                          settingsLocked(bucket.domain), bucket.id);
                due.push_back(key);
            }
        }
        // Events of a subject: its buckets (of the action, or all of them for a user-wide one).
        for (const LimitEvent& event : m_events) {
            for (const auto& [key, bucket] : m_buckets) {
                const bool action = event.action.isEmpty() || event.action == "*" ||
                                    event.action == bucket.target.policy.action;
                if (!changed && event.event != "policy" && event.user == bucket.target.user && action)
                    due.push_back(key);
            }
        }
        m_events.clear();
        for (auto it = m_buckets.begin(); it != m_buckets.end();) {
            Bucket& bucket = it->second;
            if (!changed && bucket.refreshAtMs > 0 && now >= bucket.refreshAtMs) {
                bucket.refreshAtMs = 0;
                due.push_back(it->first);
            }
            // Idle subscriptions are abandoned, and a bucket left without any forgotten.
            const qint64 idle = settingsLocked(bucket.domain).abandonAfterMs;
            for (auto sub = bucket.subscribers.begin(); sub != bucket.subscribers.end();) {
                if (now - sub->second.lastActiveMs < idle) {
                    ++sub;
                    continue;
                }
                actionFor(out[sub->first], bucket.id)->mutable_abandon_action();
                sub = bucket.subscribers.erase(sub);
            }
            it = bucket.subscribers.empty() ? m_buckets.erase(it) : std::next(it);
        }
        std::sort(due.begin(), due.end());
        due.erase(std::unique(due.begin(), due.end()), due.end());
        refreshLocked(due, out, counted);
    }
    deliver(std::move(out));
    refresh(std::move(counted)); // outside the lock: a failed call may answer at once
}

} // namespace tollgate::service
