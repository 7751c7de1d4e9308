#pragma once

#include "tollgate/HitResult.h"
#include "tollgate/Policy.h"
#include "ui/common/Session.h"

#include <functional>
#include <map>

namespace tollgate::ui {

/// One action of one user, as the user detail shows it.
struct UserActionRow
{
    QByteArray action;
    std::optional<Policy> policy;   // none: keys of an action without a policy
    QList<QByteArray> keyWindows;   // "fw 1m" of state keys the policy does not explain
    bool hasKeys = false;           // any state or ban key of this action exists
    std::optional<HitResult> usage; // where the user stands now (peek minus the next hit)
    std::optional<HitResult> next;  // what the next hit would get: the verdict
    QString error;
    bool wrongType = false;   // the peek failed with WRONGTYPE: a key it reads has another type
    qint64 resetDeadline = 0; // steady-clock ms (QDeadlineTimer) when the window empties
    qint64 banDeadline = 0;   // steady-clock ms when the ban in force ends; -1 permanent, 0 none
    // Banned: the action's hits refused under bans per second (readRefusedRate), the rate an
    // unban would let through; nullopt when not banned or not known.
    std::optional<double> refusedPerSecond;
};

/// Every action of a user: one row per policy (peeked, so "would a like be allowed?" has an
/// answer also without keys and under a user-wide ban), plus actions that have keys but no
/// policy.
struct UserActions
{
    std::map<QByteArray, UserActionRow> rows;
    std::vector<Policy> policies;
    QList<QByteArray> scannedKeys; // the user's keys the last SCAN of its prefix found
    int userKeys = 0;              // keys of the user found by that SCAN (state, bans, audit)
    QStringList errors;            // what could not be loaded, for the error line
};

/// Loads UserActions: the policy list (one round trip through the policy index) and one
/// read-only peek per policy, addressed through the key schema. With `scan`, also a budgeted
/// SCAN of the user's own prefix for actions without a policy (on open and on Refresh: on a
/// big keyspace it is the expensive part); without, the keys `previous` found are used again.
/// `done` runs on the GUI thread, and not at all once `owner` is gone.
void loadUserActions(Session* session, const QByteArray& user, QObject* owner, bool scan,
                     const UserActions& previous, std::function<void(UserActions)> done);

/// The verdict column: "yes", "yes, with a warning", "no: denied (retry in 12s)", "no: banned",
/// and when an override decides, "yes: exempt (override)" or "… (override)".
QString verdictText(const HitResult& next);
/// The same without naming an override.
QString verdictWithoutOverride(const HitResult& next);

} // namespace tollgate::ui
