#pragma once

#include "core/limiter/HitResult.h"
#include "core/moderation/Moderation.h"
#include "core/policies/PolicyStore.h"

#include <QByteArray>
#include <map>
#include <optional>

namespace tollgate {

/// (user, action); action is empty for a row that only carries a user-wide ban.
using SubjectKey = std::pair<QByteArray, QByteArray>;

/// One user x action pair that has state or a ban in Redis, with its usage now (Usage.h).
struct Subject
{
    QByteArray user;
    QByteArray action;              // empty: a row for a user-wide ban only
    bool hasPolicy = false;         // false: keys exist but the action has no valid policy
    bool stateKnown = false;        // `state` was read (a policy, and no bad key)
    HitResult state;                // usage now: count, limit, remaining, tier, resetMs
    std::optional<BanInfo> ban;     // ban of this action
    std::optional<BanInfo> userBan; // ban of every action of the user
    QString error; // what is wrong on this row (a bad key, named; an invalid policy)

    SubjectKey key() const { return {user, action}; }
    bool banned() const { return ban.has_value() || userBan.has_value(); }
    /// The ban that applies (the action's first), or null.
    const BanInfo* activeBan() const { return ban ? &*ban : userBan ? &*userBan : nullptr; }
    bool nearLimit() const;
};

/// The policies as the readers need them: valid ones by action, invalid ones with the reason.
struct PolicyCatalog
{
    std::map<QByteArray, Policy> valid;
    std::map<QByteArray, QString> invalid;

    static PolicyCatalog from(const PolicyListing& listing);
};

} // namespace tollgate
