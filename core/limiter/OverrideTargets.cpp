#include "core/limiter/OverrideTargets.h"

namespace tollgate {

QByteArray OverrideTargets::keyOf(const QByteArray& action, const QByteArray& user)
{
    // ids are any bytes: the action's length keeps (action, user) pairs apart
    return QByteArray::number(action.size()) + ':' + action + user;
}

std::shared_ptr<const PreparedHit>
OverrideTargets::find(const std::shared_ptr<const PreparedHit>& policy, const QByteArray& user) const
{
    if (m_size.load(std::memory_order_relaxed) == 0)
        return nullptr;
    QMutexLocker lock(&m_mutex);
    const auto entry = m_entries.constFind(keyOf(policy->policy().action, user));
    if (entry == m_entries.constEnd() || entry->policy.lock() != policy)
        return nullptr;
    return entry->target;
}

void OverrideTargets::remember(const std::shared_ptr<const PreparedHit>& policy,
                               const QByteArray& user, std::shared_ptr<const PreparedHit> target)
{
    if (m_capacity == 0)
        return;
    QByteArray key = keyOf(policy->policy().action, user);
    QMutexLocker lock(&m_mutex);
    auto entry = m_entries.find(key);
    if (entry != m_entries.end()) {
        *entry = {policy, std::move(target)};
        return;
    }
    while (m_entries.size() >= qsizetype(m_capacity) && !m_order.empty()) {
        m_entries.remove(m_order.front());
        m_order.pop_front();
    }
    // keys forgotten meanwhile still sit in the order: drop them before it outgrows the map
    if (m_order.size() >= 2 * m_capacity) {
        std::deque<QByteArray> live;
        for (QByteArray& k : m_order)
            if (m_entries.contains(k))
                live.push_back(std::move(k));
        m_order.swap(live);
    }
    m_entries.insert(key, {policy, std::move(target)});
    m_order.push_back(std::move(key));
    m_size.store(size_t(m_entries.size()), std::memory_order_relaxed);
}

void OverrideTargets::forget(const QByteArray& action, const QByteArray& user)
{
    if (m_size.load(std::memory_order_relaxed) == 0)
        return;
    QMutexLocker lock(&m_mutex);
    m_entries.remove(keyOf(action, user));
    m_size.store(size_t(m_entries.size()), std::memory_order_relaxed);
}

size_t OverrideTargets::size() const
{
    QMutexLocker lock(&m_mutex);
    return size_t(m_entries.size());
}

} // namespace tollgate
