#pragma once

#include "tollgate/Policy.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace tollgate::ui {

/// One user-visible field of a policy in both versions.
struct PolicyField
{
    QString name; // "Limits", "Ban", "Deny message" ...
    QString theirs;
    QString mine;
    bool differs() const { return theirs != mine; }
};

/// Every field an operator can edit, side by side: limits, algorithm, cost, warn level, ban,
/// time zone, whether denied hits count, deny message. Server-owned fields (revision, author)
/// are left out; the conflict question names them itself.
QList<PolicyField> comparePolicies(const Policy& theirs, const Policy& mine);

/// "Limits: theirs 7 per 10s, yours 5 per 10s" lines for the fields that differ, then the
/// count of the ones that are the same; "no field differs" when none does.
QString policyDifferenceText(const Policy& theirs, const Policy& mine);

/// What a save changes, one "Limits: 100 per 1d → 120 per 1d" per field that differs from
/// `before` (every field, "Limits: 10 per 1m", for a new policy: no `before`).
QStringList policyChanges(const std::optional<Policy>& before, const Policy& after);

} // namespace tollgate::ui
