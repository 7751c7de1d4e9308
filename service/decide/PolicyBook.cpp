#include "service/decide/PolicyBook.h"

namespace tollgate::service {

PolicyBook::PolicyBook() : m_snapshot(std::make_shared<const QHash<QByteArray, Policy>>()) {}

PolicyBook::Snapshot PolicyBook::current() const
{
    QMutexLocker lock(&m_mutex);
    return m_snapshot;
}

void PolicyBook::replace(const std::vector<Policy>& configured, const std::vector<Policy>& stored)
{
    auto next = std::make_shared<QHash<QByteArray, Policy>>();
    for (const Policy& policy : configured)
        next->insert(policy.action, policy);
    for (const Policy& policy : stored)
        next->insert(policy.action, policy);
    QMutexLocker lock(&m_mutex);
    m_snapshot = std::move(next);
}

} // namespace tollgate::service
