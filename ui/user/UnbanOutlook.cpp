#include "ui/user/UnbanOutlook.h"

#include "core/policies/Duration.h"
#include "ui/common/DisplayText.h"

#include <QCoreApplication>
#include <algorithm>

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

} // namespace

UnbanOutlook unbanOutlook(const UserActions& actions, const std::vector<AuditEntry>& history,
                          const QByteArray& action, qint64 nowMs)
{
    UnbanOutlook outlook;
    QStringList lines;
    for (const auto& [name, row] : actions.rows) {
        if ((!action.isEmpty() && name != action) || !row.policy || !row.usage)
            continue;
        const HitResult& usage = *row.usage;
        const Policy& policy = *row.policy;
        const QString used = tr("%1: %2 of %3 per %4 used")
                                 .arg(displayId(name))
                                 .arg(usage.count)
                                 .arg(usage.limit)
                                 .arg(windowOf(policy, usage));
        if (usage.limit > 0 && usage.count + std::max<qint64>(1, policy.cost) > usage.limit) {
            outlook.wouldNotHold = true;
            lines << used + tr(" (for %1 more): unbanned now, the next hit is denied%2.")
                                .arg(formatCountdown(usage.resetMs),
                                     policy.hasBan()
                                         ? tr(" and bans again (%1)").arg(policy.banText())
                                         : QString());
        } else if (usage.count > 0) {
            lines << used + tr(": the next hit passes.");
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
    if (outlook.wouldNotHold)
        lines << tr("To make the unban hold, reset the counters too (checked below): the user "
                    "starts from zero.");
    outlook.text = lines.join(QLatin1Char('\n'));
    return outlook;
}

} // namespace tollgate::ui
