#include "core/policies/PolicyPlan.h"

#include "core/keys/IdText.h"

#include <map>
#include <set>

namespace tollgate {

Result<PolicyPlan> planPolicies(const std::vector<Policy>& wanted, const PolicyListing& stored,
                                bool prune)
{
    if (!stored.invalid.empty()) {
        const InvalidPolicy& bad = stored.invalid.front();
        return Error{ErrorKind::WrongType,
                     QStringLiteral("the stored policy %1 is not valid (%2): fix or delete it "
                                    "(tollgatectl policy delete %1) before applying a file")
                         .arg(idToDisplayText(bad.action), bad.reason)};
    }
    std::map<QByteArray, const Policy*> byAction;
    for (const Policy& policy : stored.policies)
        byAction[policy.action] = &policy;

    PolicyPlan plan;
    std::set<QByteArray> inFile;
    for (const Policy& policy : wanted) {
        inFile.insert(policy.action);
        const auto found = byAction.find(policy.action);
        if (found == byAction.end()) {
            plan.steps.push_back({PolicyPlanStep::Kind::Create, policy, 0, {}});
            continue;
        }
        std::vector<PolicyFieldChange> changes = diffPolicies(*found->second, policy);
        if (changes.empty()) {
            ++plan.unchanged;
            continue;
        }
        plan.steps.push_back(
            {PolicyPlanStep::Kind::Change, policy, found->second->revision, std::move(changes)});
    }
    for (const Policy& policy : stored.policies) { // sorted by action
        if (inFile.count(policy.action))
            continue;
        if (prune)
            plan.steps.push_back({PolicyPlanStep::Kind::Delete, policy, policy.revision, {}});
        else
            plan.notInFile.push_back(policy.action);
    }
    return plan;
}

} // namespace tollgate
