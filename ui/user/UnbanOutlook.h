#pragma once

#include "tollgate/AuditLog.h"
#include "ui/user/UserActions.h"

#include <array>

namespace tollgate::ui {

/// What support may do with an unban; each step's writes are scripts atomic with their audit
/// entries, all with the one reason typed.
enum class UnbanStep
{
    LiftOnly, // unban.lua
    ResetToo, // unban.lua, then reset.lua: the user starts from zero
    GiveMore, // override_set.lua (limits above the refused rate, a day), then unban.lua
    Exempt    // override_set.lua (unlimited, an hour), then unban.lua
};
inline constexpr int kUnbanStepCount = 4;
inline constexpr qint64 kGiveMoreMs = 86'400'000; // as Give more… gives
inline constexpr qint64 kExemptMs = 3'600'000;

/// Whether one step would hold, and why, in a sentence.
struct StepOutlook
{
    bool offered = false;
    bool holds = true;
    QString text;
};

/// Whether lifting a ban would hold, for support to read before they confirm. An unban leaves
/// the counters as they are, so a user at the limit is denied on the next hit; and a user who
/// keeps sending (the refused hits the statistics count) fills even reset counters again.
struct UnbanOutlook
{
    QString text; // per action: usage against the limit, the refused rate; recent automatic bans
    std::array<StepOutlook, kUnbanStepCount> steps;
    UnbanStep suggested = UnbanStep::LiftOnly; // the first step offered that holds
    QByteArray exemptAction;                   // Exempt: the action, or "*" for every ban
    QByteArray moreAction;                     // GiveMore: the action sent fast
    std::vector<WindowLimit> moreWindows;      // GiveMore: limits above its refused rate

    const StepOutlook& step(UnbanStep s) const { return steps[size_t(s)]; }
    bool wouldNotHold() const { return !step(UnbanStep::LiftOnly).holds; }
};

/// From what the user detail loaded: each action the unban covers (`action`, or every action
/// when empty) with its counters against the limit and, banned, the action's refused rate;
/// the automatic bans of the last hour in the user's audit history. `nowMs`: the wall clock,
/// for "the last hour".
UnbanOutlook unbanOutlook(const UserActions& actions, const std::vector<AuditEntry>& history,
                          const QByteArray& action, qint64 nowMs);

/// Ms until hits at `perSecond` (each of the policy's cost) are refused again by one of
/// `policy`'s windows, the window with limit `limit` starting from `count` and the others from
/// zero; -1 when the rate fits every window. Fixed-window arithmetic, close enough for the
/// others at rates far above the limit, which is when it matters.
qint64 msUntilRefused(const Policy& policy, double perSecond, qint64 count, qint64 limit);

/// "35/s", "2.5/s", "12/min": a rate of hits as support reads it.
QString hitRateText(double perSecond);

} // namespace tollgate::ui
