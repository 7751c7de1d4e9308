#pragma once

#include "tollgate/Policy.h"

#include <vector>

namespace tollgate {

/// One field of a policy as people read and write it (policy files, plans, diffs), with the
/// names and value syntax of `tollgatectl policy set`.
struct PolicyTextField
{
    enum class Kind
    {
        Text,
        Integer,
        Boolean
    };
    QByteArray name;
    QString value;
    Kind kind = Kind::Text; // how a JSON or YAML writer should spell the value
};
using PolicyText = std::vector<PolicyTextField>;

/// Every field of `policy`, always in this order: algorithm, windows ("30s:10,1h:100"), cost,
/// warn, ban ("1h", "until midnight" or "none"), calendar, time_zone, count_denied, message,
/// on_error ("report", "allow", "deny" or "insurance"). The action and the server-owned fields
/// (revision, updated_by, updated_ms) are not among them.
PolicyText policyToText(const Policy& policy);

/// The policy of `action` from fields given by name, in any order; an absent field takes the
/// default of `policy set` (time_zone: UTC). An unknown name, a bad value or an invalid policy
/// is InvalidInput naming the field.
Result<Policy> policyFromText(const QByteArray& action, const PolicyText& fields);

/// The algorithm named `name`, or InvalidInput listing the names.
Result<Algorithm> algorithmFromText(const QString& name);

/// One field whose value differs between two policies.
struct PolicyFieldChange
{
    QByteArray name;
    QString before;
    QString after;
};

/// The fields of policyToText() whose values differ, in its order.
std::vector<PolicyFieldChange> diffPolicies(const Policy& before, const Policy& after);

} // namespace tollgate
