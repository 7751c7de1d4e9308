#include "ui/subjects/ActionPolicies.h"

namespace tollgate::ui {

ActionPolicies::ActionPolicies(const std::vector<Policy>& policies)
{
    for (const Policy& policy : policies) {
        m_byAction.insert(policy.action, policy);
        m_hasShadow = m_hasShadow || policy.shadow;
    }
}

const Policy* ActionPolicies::find(const QByteArray& action) const
{
    const auto it = m_byAction.constFind(action);
    return it == m_byAction.constEnd() ? nullptr : &*it;
}

std::vector<const Policy*> ActionPolicies::byIndex(const QList<QByteArray>& actions) const
{
    std::vector<const Policy*> policies;
    policies.reserve(size_t(actions.size()));
    for (const QByteArray& action : actions)
        policies.push_back(find(action));
    return policies;
}

std::vector<bool> ActionPolicies::shadowByIndex(const QList<QByteArray>& actions) const
{
    std::vector<bool> shadow;
    shadow.reserve(size_t(actions.size()));
    for (const QByteArray& action : actions) {
        const Policy* policy = find(action);
        shadow.push_back(policy && policy->shadow);
    }
    return shadow;
}

} // namespace tollgate::ui
