#pragma once

#include "core/audit/AuditLog.h"
#include "ui/user/UserActions.h"

namespace tollgate::ui {

/// Whether lifting a ban would hold, for support to read before they confirm: an unban leaves
/// the counters as they are, so a user still at the limit is denied on the next hit, and banned
/// again by a policy that bans.
struct UnbanOutlook
{
    QString text;              // per action: usage against the limit, and what the next hit gets
    bool wouldNotHold = false; // the next hit of some action in scope would be denied
};

/// From what the user detail loaded: each action the unban covers (`action`, or every action
/// when empty) with its counters against the limit, and the automatic bans of the last hour in
/// the user's audit history. `nowMs`: the wall clock, for "the last hour".
UnbanOutlook unbanOutlook(const UserActions& actions, const std::vector<AuditEntry>& history,
                          const QByteArray& action, qint64 nowMs);

} // namespace tollgate::ui
