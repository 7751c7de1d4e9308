#pragma once

#include "tollgate/Policy.h"

#include <QHash>
#include <QList>
#include <memory>
#include <vector>

namespace tollgate::ui {

/// The valid policies by action, for the Subjects page to join its rows against (as it joins
/// OverrideMarks): which actions are in shadow mode, and the windows a row's rate is measured
/// over. Built from each policy listing the loader reads (a pass, a policy event), shared
/// read-only by the model and the sorting worker; its size grows with the policies only.
class ActionPolicies
{
public:
    ActionPolicies() = default;
    explicit ActionPolicies(const std::vector<Policy>& policies);

    /// The action's policy, or null (no valid policy).
    const Policy* find(const QByteArray& action) const;
    /// By the store's action index, so a per-row lookup is an array access (the worker).
    std::vector<const Policy*> byIndex(const QList<QByteArray>& actions) const;
    /// Whether each action (by the store's action index) is in shadow mode.
    std::vector<bool> shadowByIndex(const QList<QByteArray>& actions) const;
    bool hasShadow() const { return m_hasShadow; }

private:
    QHash<QByteArray, Policy> m_byAction;
    bool m_hasShadow = false;
};

using SharedActionPolicies = std::shared_ptr<const ActionPolicies>;

} // namespace tollgate::ui
