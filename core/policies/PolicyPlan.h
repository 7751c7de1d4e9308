#pragma once

#include "core/policies/PolicyText.h"
#include "tollgate/PolicyStore.h"

#include <vector>

// What `tollgatectl policy apply` and tollgated would change on the server to make it hold a
// file's policies.
namespace tollgate {

struct PolicyPlanStep
{
    enum class Kind
    {
        Create,
        Change,
        Delete
    };
    Kind kind;
    Policy policy;       // the file's (create, change) or the stored one (delete)
    qint64 revision = 0; // the stored revision the write is compare-and-set against (0: new)
    std::vector<PolicyFieldChange> changes; // Change: field by field, stored -> file
};

struct PolicyPlan
{
    std::vector<PolicyPlanStep> steps; // creates and changes in file order, then deletes
    qint64 unchanged = 0;
    std::vector<QByteArray> notInFile; // stored, not in the file, kept (no --prune)
};

/// The plan from the file's policies and the server's listing. A stored policy that is not
/// valid can be neither compared nor replaced safely: an error naming it.
Result<PolicyPlan> planPolicies(const std::vector<Policy>& wanted, const PolicyListing& stored,
                                bool prune);

} // namespace tollgate
