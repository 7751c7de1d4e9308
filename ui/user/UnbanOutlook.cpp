#include "ui/user/UnbanOutlook.h"

#include "core/policies/Duration.h"
#include "tollgate/Overrides.h"
#include "ui/common/DisplayText.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("UnbanOutlook", text);
}

// The window whose limit the usage reports (hit.lua's binding window), as "1m".
QString windowOf(const Policy& policy, const HitResult& usage)
{
    for (const WindowLimit& window : policy.windows)
        if (window.limit == usage.limit)
            return formatDuration(window.windowMs);
    return {};
}

QString withinText(qint64 ms)
{
    return ms < 1000 ? tr("within a second") : tr("within %1").arg(formatCountdown(ms));
}

// "banned again (ban 1h)" for a policy that bans, else "denied again".
QString refusedAgainText(const Policy& policy)
{
    return policy.hasBan() ? tr("banned again (%1)").arg(policy.banText()) : tr("denied again");
}

// Limits a sender at `perSecond` stays under: half as much again as a window's worth, at least
// twice the policy's (what Give more… gives), two significant digits.
std::vector<WindowLimit> windowsAbove(const Policy& policy, double perSecond)
{
    std::vector<WindowLimit> windows = policy.windows;
    for (WindowLimit& window : windows) {
        const double needed = perSecond * double(window.windowMs) / 1000.0 *
                              double(std::max<qint64>(1, policy.cost)) * 1.5;
        const double step = std::pow(10.0, std::max(0.0, std::floor(std::log10(needed)) - 1));
        window.limit = std::max(window.limit * 2, qint64(std::ceil(needed / step) * step));
    }
    return withOverrideWindows(policy, windows).windows; // capped where the algorithm needs
}

struct ActionFacts
{
    const Policy* policy = nullptr;
    const HitResult* usage = nullptr;
    double perSecond = 0; // the refused rate, 0 when unknown or none
};

void predict(UnbanOutlook& outlook, const ActionFacts& facts, const QString& name)
{
    const Policy& policy = *facts.policy;
    const HitResult& usage = *facts.usage;
    const qint64 cost = std::max<qint64>(1, policy.cost);
    StepOutlook& lift = outlook.steps[size_t(UnbanStep::LiftOnly)];
    StepOutlook& reset = outlook.steps[size_t(UnbanStep::ResetToo)];
    const bool deniedNext = usage.limit > 0 && usage.count + cost > usage.limit;
    const qint64 keptMs =
        deniedNext ? 0 : msUntilRefused(policy, facts.perSecond, usage.count, usage.limit);
    // "about 35/s against 20 per 1m": the rate that makes an unban futile, beside the limit.
    const QString against =
        tr("about %1 against %2").arg(hitRateText(facts.perSecond), policy.windowsText());
    if (deniedNext || keptMs >= 0) {
        lift.holds = false;
        lift.text += (facts.perSecond > 0 ? tr("%1: %2: %3 %4.")
                                                .arg(name, against, refusedAgainText(policy),
                                                     withinText(std::max<qint64>(0, keptMs)))
                                          : tr("%1: the next hit is %2 (for %3 more).")
                                                .arg(name, refusedAgainText(policy),
                                                     formatCountdown(usage.resetMs))) +
                     QLatin1Char(' ');
    }
    const qint64 resetMs = msUntilRefused(policy, facts.perSecond, 0, usage.limit);
    if (resetMs >= 0) {
        reset.holds = false;
        reset.text += tr("%1: from zero, %2: %3 %4.")
                          .arg(name, against, refusedAgainText(policy), withinText(resetMs)) +
                      QLatin1Char(' ');
    }
}

} // namespace

qint64 msUntilRefused(const Policy& policy, double perSecond, qint64 count, qint64 limit)
{
    if (perSecond <= 0)
        return -1;
    const qint64 cost = std::max<qint64>(1, policy.cost);
    qint64 soonest = -1;
    for (const WindowLimit& window : policy.windows) {
        const double perWindow = perSecond * double(window.windowMs) / 1000.0 * double(cost);
        const qint64 start = window.limit == limit ? count : 0;
        if (perWindow + double(start) <= double(window.limit))
            continue; // the rate fits: this window never refuses it
        const qint64 fitting = std::max<qint64>(0, (window.limit - start) / cost);
        const auto ms = qint64(double(fitting + 1) / perSecond * 1000.0);
        soonest = soonest < 0 ? ms : std::min(soonest, ms);
    }
    return soonest;
}

QString hitRateText(double perSecond)
{
    if (perSecond >= 10)
        return tr("%1/s").arg(qRound64(perSecond));
    if (perSecond >= 1)
        return tr("%1/s").arg(perSecond, 0, 'f', 1);
    return tr("%1/min").arg(perSecond * 60, 0, 'f', perSecond * 60 >= 10 ? 0 : 1);
}

UnbanOutlook unbanOutlook(const UserActions& actions, const std::vector<AuditEntry>& history,
                          const QByteArray& action, qint64 nowMs)
{
    UnbanOutlook outlook;
    for (StepOutlook& step : outlook.steps)
        step.offered = true;
    QStringList lines;
    double fastest = 0; // the highest refused rate among the actions in scope
    const Policy* fastestPolicy = nullptr;
    int sentFast = 0; // actions in scope with a refused rate
    for (const auto& [name, row] : actions.rows) {
        if ((!action.isEmpty() && name != action) || !row.policy || !row.usage)
            continue;
        const ActionFacts facts{&*row.policy, &*row.usage, row.refusedPerSecond.value_or(0)};
        const QString shown = displayId(name);
        QString line = tr("%1: %2 of %3 per %4 used")
                           .arg(shown)
                           .arg(facts.usage->count)
                           .arg(facts.usage->limit)
                           .arg(windowOf(*facts.policy, *facts.usage));
        if (facts.perSecond > 0)
            line += tr("; refused under bans now: about %1 (every banned user of %2 together)")
                        .arg(hitRateText(facts.perSecond), shown);
        // Untouched actions say nothing about whether the unban holds.
        if (!action.isEmpty() || facts.usage->count > 0 || facts.perSecond > 0)
            lines << line + QLatin1Char('.');
        predict(outlook, facts, shown);
        sentFast += facts.perSecond > 0 ? 1 : 0;
        if (facts.perSecond > fastest) {
            fastest = facts.perSecond;
            fastestPolicy = facts.policy;
        }
    }
    int autoBans = 0;
    for (const AuditEntry& entry : history)
        if (entry.event == QLatin1String("auto_ban") && entry.timeMs >= nowMs - 3'600'000 &&
            (action.isEmpty() || entry.action == action))
            ++autoBans;
    if (autoBans > 0)
        lines << tr("Banned automatically %1 in the last hour.")
                     .arg(autoBans == 1 ? tr("once") : tr("%1 times").arg(autoBans));
    outlook.text = lines.join(QLatin1Char('\n'));

    StepOutlook& more = outlook.steps[size_t(UnbanStep::GiveMore)];
    StepOutlook& exempt = outlook.steps[size_t(UnbanStep::Exempt)];
    outlook.exemptAction = action.isEmpty() ? QByteArray(Override::kEveryAction) : action;
    // Limits above the rate of the action sent fast; another action sent fast stays banned.
    more.offered = fastestPolicy != nullptr;
    if (more.offered) {
        outlook.moreAction = fastestPolicy->action;
        outlook.moreWindows = windowsAbove(*fastestPolicy, fastest);
        Policy given = *fastestPolicy;
        given.windows = outlook.moreWindows;
        more.holds = sentFast == 1;
        more.text = more.holds ? tr("Holds: for a day, %1 instead of %2 on %3, above that rate.")
                                     .arg(given.windowsText(), fastestPolicy->windowsText(),
                                          displayId(fastestPolicy->action))
                               : tr("Holds for %1 only: other actions are sent fast too.")
                                     .arg(displayId(fastestPolicy->action));
    }
    exempt.text = fastest > 0 ? tr("Holds for an hour: never denied or banned automatically, "
                                   "still counted; at that rate banned again once it ends.")
                              : tr("Holds for an hour: never denied or banned automatically, "
                                   "still counted.");
    StepOutlook& lift = outlook.steps[size_t(UnbanStep::LiftOnly)];
    StepOutlook& reset = outlook.steps[size_t(UnbanStep::ResetToo)];
    if (lift.holds)
        lift.text = tr("Holds: the next hit passes.");
    if (reset.holds)
        reset.text = tr("Holds: the user starts from zero.");
    for (int s = 0; s < kUnbanStepCount; ++s) {
        if (outlook.steps[size_t(s)].offered && outlook.steps[size_t(s)].holds) {
            outlook.suggested = UnbanStep(s);
            break;
        }
    }
    return outlook;
}

} // namespace tollgate::ui
