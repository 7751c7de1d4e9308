#pragma once

#include "tollgate/Overrides.h"
#include "ui/common/Session.h"

#include <functional>

namespace tollgate::ui {

/// What overrideThenUnban() did.
struct OverrideAndUnban
{
    Override stored;
    qint64 lifted = 0; // bans removed
};

/// "1 ban lifted.", "3 bans lifted.": what an unban did, as the user detail says it.
QString liftedText(qint64 bans);

/// Sets `request`'s override, then lifts the user's ban of `banScope` (an action, or "" for
/// every ban) with the same actor and reason: two scripts, each atomic with its own audit
/// entries. The unban only once the override is in force, so the user is never let back in
/// under the limits that banned them; a failed unban says the override stayed. `done` runs on
/// the GUI thread, and not at all once `owner` is gone.
void overrideThenUnban(Session* session, const OverrideRequest& request, const QByteArray& banScope,
                       QObject* owner, std::function<void(Result<OverrideAndUnban>)> done);

} // namespace tollgate::ui
