#include "tollgate/RefusalCache.h"

#include <QHashFunctions>
#include <chrono>

namespace tollgate {

namespace {

qint64 steadyMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// What one entry costs besides its ids and message: the list node with the entry, the index's
// node and bucket, the key's allocation (measured: bench_service's memory run, VmRSS grown per
// refusal held).
constexpr qint64 kEntryOverhead = 320;

bool isCacheable(const Policy& policy, qint64 cost, const HitResult& hit)
{
    if (hit.allowed || hit.shadow || hit.decidedBy != DecidedBy::Redis || cost < 0)
        return false;
    // A refused hit that counts must reach Redis, except in a fixed window: there a refusal
    // holds until the window ends whatever is counted meanwhile (the count only grows), so
    // counting it changes nothing but the number.
    if (policy.countDenied && policy.algorithm != Algorithm::FixedWindow)
        return false;
    return hit.retryAfterMs != 0;
}

} // namespace

RefusalCache::RefusalCache(qint64 maxBytes) : m_maxBytes(maxBytes) {}

QByteArray RefusalCache::key(const QByteArray& action, const QByteArray& user)
{
    QByteArray key;
    key.reserve(action.size() + 1 + user.size());
    key.append(action).append('\0').append(user);
    return key;
}

RefusalCache::Shard& RefusalCache::shardOf(const QByteArray& key)
{
    return m_shards[qHash(key) % kShards];
}

void RefusalCache::eraseLocked(Shard& shard, Lru::iterator it)
{
    shard.bytes -= it->bytes;
    shard.index.erase(it->key);
    shard.lru.erase(it);
}

std::optional<HitResult> RefusalCache::answer(const Policy& policy, const QByteArray& user,
                                              qint64 cost)
{
    if (!isActive())
        return std::nullopt;
    const QByteArray k = key(policy.action, user);
    Shard& shard = shardOf(k);
    const qint64 now = steadyMs();
    QMutexLocker lock(&shard.mutex);
    const auto found = shard.index.find(k);
    if (found == shard.index.end()) {
        m_misses.fetchAndAddRelaxed(1);
        return std::nullopt;
    }
    const Lru::iterator it = found->second;
    const bool banned = it->hit.tier == Tier::Banned;
    const qint64 wanted = cost > 0 ? cost : policy.cost;
    if (now >= it->deadlineMs || it->revision != policy.revision) {
        eraseLocked(shard, it);
        m_misses.fetchAndAddRelaxed(1);
        return std::nullopt;
    }
    if (!banned && wanted < it->cost) { // a cheaper hit may fit where this one did not
        m_misses.fetchAndAddRelaxed(1);
        return std::nullopt;
    }
    shard.lru.splice(shard.lru.begin(), shard.lru, it);
    m_hits.fetchAndAddRelaxed(1);
    HitResult hit = it->hit;
    const qint64 elapsed = now - it->storedMs;
    if (hit.retryAfterMs > 0)
        hit.retryAfterMs = std::max<qint64>(1, hit.retryAfterMs - elapsed);
    if (hit.resetMs > 0)
        hit.resetMs = std::max<qint64>(0, hit.resetMs - elapsed);
    return hit;
}

void RefusalCache::remember(const Policy& policy, const QByteArray& user, qint64 cost,
                            const HitResult& hit)
{
    if (!isCacheable(policy, cost, hit) || m_maxBytes <= 0 || !isActive())
        return;
    const qint64 now = steadyMs();
    const qint64 hold = hit.retryAfterMs < 0 ? kMaxHoldMs : hit.retryAfterMs;
    const QByteArray k = key(policy.action, user);
    Entry entry{k, hit, cost > 0 ? cost : policy.cost, policy.revision, now, now + hold, 0};
    // hit.lua bans on every deny of a policy that bans: Redis answers "banned" from now on.
    if (policy.hasBan() && entry.hit.tier == Tier::Deny)
        entry.hit.tier = Tier::Banned;
    entry.bytes = kEntryOverhead + k.size() + hit.message.size() * 2;
    {
        QMutexLocker lock(&m_actionsMutex);
        m_actions.insert(policy.action);
    }
    Shard& shard = shardOf(k);
    const qint64 shardLimit = m_maxBytes / qint64(kShards);
    QMutexLocker lock(&shard.mutex);
    if (const auto found = shard.index.find(k); found != shard.index.end())
        eraseLocked(shard, found->second);
    shard.lru.push_front(std::move(entry));
    shard.index.emplace(k, shard.lru.begin());
    shard.bytes += shard.lru.front().bytes;
    while (shard.bytes > shardLimit && shard.lru.size() > 1) {
        eraseLocked(shard, std::prev(shard.lru.end()));
        m_evictions.fetchAndAddRelaxed(1);
    }
}

void RefusalCache::forgetUser(const QByteArray& user, const QByteArray& action)
{
    std::set<QByteArray> actions;
    if (action.isEmpty() || action == "*") {
        QMutexLocker lock(&m_actionsMutex);
        actions = m_actions;
    } else {
        actions.insert(action);
    }
    for (const QByteArray& each : actions) {
        const QByteArray k = key(each, user);
        Shard& shard = shardOf(k);
        QMutexLocker lock(&shard.mutex);
        if (const auto found = shard.index.find(k); found != shard.index.end())
            eraseLocked(shard, found->second);
    }
}

void RefusalCache::forgetAction(const QByteArray& action)
{
    const QByteArray prefix = key(action, {});
    for (Shard& shard : m_shards) {
        QMutexLocker lock(&shard.mutex);
        for (auto it = shard.lru.begin(); it != shard.lru.end();) {
            const auto next = std::next(it);
            if (it->key.startsWith(prefix))
                eraseLocked(shard, it);
            it = next;
        }
    }
}

void RefusalCache::setActive(bool active)
{
    m_active.storeRelease(active ? 1 : 0);
    if (!active)
        clear();
}

void RefusalCache::clear()
{
    for (Shard& shard : m_shards) {
        QMutexLocker lock(&shard.mutex);
        shard.lru.clear();
        shard.index.clear();
        shard.bytes = 0;
    }
}

RefusalCache::Stats RefusalCache::stats() const
{
    Stats stats;
    for (const Shard& shard : m_shards) {
        QMutexLocker lock(&shard.mutex);
        stats.entries += qint64(shard.lru.size());
        stats.bytes += shard.bytes;
    }
    stats.hits = m_hits.loadRelaxed();
    stats.misses = m_misses.loadRelaxed();
    stats.evictions = m_evictions.loadRelaxed();
    return stats;
}

} // namespace tollgate
