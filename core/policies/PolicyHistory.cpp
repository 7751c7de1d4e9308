#include "core/policies/PolicyHistory.h"

#include "core/keys/IdText.h"

namespace tollgate {

bool isScriptOwnedField(const QByteArray& name)
{
    return name == "revision" || name == "updated_by" || name == "updated_ms" ||
           name == "updated_reason" || name == "contract";
}

PolicyRevision PolicyRevision::fromFields(const QList<QPair<QByteArray, QByteArray>>& fields)
{
    PolicyRevision revision;
    revision.fields = fields;
    for (const auto& [name, value] : fields) {
        if (name == "revision")
            revision.revision = value.toLongLong();
        else if (name == "updated_by")
            revision.updatedBy = QString::fromUtf8(value);
        else if (name == "updated_ms")
            revision.updatedMs = value.toLongLong();
        else if (name == "updated_reason")
            revision.reason = QString::fromUtf8(value);
    }
    return revision;
}

Result<Policy> PolicyRevision::policy(const QByteArray& action) const
{
    // An older revision was written under the contract of its day; its fields are read as they
    // are, so the contract marker is not checked here.
    QList<QPair<QByteArray, QByteArray>> policyFields;
    for (const auto& field : fields) {
        if (field.first != "contract")
            policyFields << field;
    }
    auto policy = Policy::fromFields(action, policyFields);
    if (!policy)
        return Error{ErrorKind::WrongType,
                     QStringLiteral("revision %1 of policy %2 is no valid "
                                    "policy: %3")
                         .arg(revision)
                         .arg(idToDisplayText(action), policy.error().message)};
    return policy;
}

const PolicyRevision* PolicyHistory::find(qint64 revision) const
{
    if (current && current->revision == revision)
        return &*current;
    for (const PolicyRevision& earlier : this->earlier) {
        if (earlier.revision == revision)
            return &earlier;
    }
    return nullptr;
}

Error PolicyHistory::missing(qint64 revision) const
{
    const QString name = idToDisplayText(action);
    if (!earlier.empty() && revision > 0 && revision < earlier.back().revision)
        return {ErrorKind::NotFound,
                QStringLiteral("revision %1 of policy %2 was pruned from its history (it keeps "
                               "revisions %3 to %4)")
                    .arg(revision)
                    .arg(name)
                    .arg(earlier.back().revision)
                    .arg(current ? current->revision : earlier.front().revision)};
    return {ErrorKind::NotFound,
            QStringLiteral("policy %1 has no revision %2").arg(name).arg(revision)};
}

Result<Policy> PolicyHistory::policyAt(qint64 revision) const
{
    const PolicyRevision* found = find(revision);
    if (!found)
        return missing(revision);
    return found->policy(action);
}

Result<std::vector<PolicyFieldChange>> diffRevisions(const PolicyHistory& history, qint64 before,
                                                     qint64 after)
{
    auto a = history.policyAt(before);
    if (!a)
        return a.error();
    auto b = history.policyAt(after);
    if (!b)
        return b.error();
    return diffPolicies(*a, *b);
}

} // namespace tollgate
