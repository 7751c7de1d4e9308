#pragma once

#include "core/policies/Policy.h"
#include "core/policies/PolicyText.h"

#include <optional>
#include <vector>

namespace tollgate {

/// One revision of a policy as the scripts stored it: the whole hash, the client's fields and
/// the server-owned revision, updated_by, updated_ms and updated_reason (lua/README.md, "Policy
/// history"). Fields this version does not know (a newer client's) are kept as they are.
struct PolicyRevision
{
    qint64 revision = 0;
    QString updatedBy;
    qint64 updatedMs = 0;
    QString reason; // the audit reason of the save, rollback or restore that wrote it
    QList<QPair<QByteArray, QByteArray>> fields;

    static PolicyRevision fromFields(const QList<QPair<QByteArray, QByteArray>>& fields);
    /// The policy these fields describe (Policy::fromFields, whatever contract wrote them), or
    /// WrongType naming the revision when they describe none.
    Result<Policy> policy(const QByteArray& action) const;
};

/// Whether the scripts own the policy-hash field `name` (revision, updated_by, updated_ms,
/// updated_reason, contract): a client never gives it, a rollback never copies it.
bool isScriptOwnedField(const QByteArray& name);

/// What `policy history` shows: the stored revision, if any, and the earlier ones the history
/// stream keeps, newest first.
struct PolicyHistory
{
    QByteArray action;
    std::optional<PolicyRevision> current; // none: the policy was deleted
    std::vector<PolicyRevision> earlier;   // newest first; at most the newest 100

    bool deleted() const { return !current.has_value(); }
    /// The revision numbered `revision`, the current one included; nullptr when none.
    const PolicyRevision* find(qint64 revision) const;
    /// NotFound that says whether `revision` never existed or was pruned from the history.
    Error missing(qint64 revision) const;
    /// The policy of `revision`, or NotFound / WrongType saying why there is none.
    Result<Policy> policyAt(qint64 revision) const;
};

/// The fields of policyToText() that differ between two revisions, in its order.
Result<std::vector<PolicyFieldChange>> diffRevisions(const PolicyHistory& history, qint64 before,
                                                     qint64 after);

} // namespace tollgate
