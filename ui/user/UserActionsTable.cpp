#include "ui/user/UserActionsTable.h"

#include "core/subjects/Usage.h"

#include "ui/common/DisplayText.h"
#include "ui/common/OverrideText.h"
#include "ui/common/Palette.h"
#include "ui/user/RefusedRate.h"
#include "ui/user/UnbanOutlook.h"

#include <QDeadlineTimer>
#include <algorithm>

namespace tollgate::ui {

UserActionsTable::UserActionsTable(QWidget* parent)
    : DetailTable(QStringLiteral("actionsTableWidget"),
                  {tr("Action"), tr("Count / limit"), tr("Remaining"), tr("Resets in"),
                   tr("Windows"), tr("Next hit allowed?")},
                  parent)
{
}

namespace {

// The override that applies to `action`: its own, else the every-action one.
const Override* overrideFor(const std::vector<Override>& overrides, const QByteArray& action)
{
    const Override* every = nullptr;
    for (const Override& o : overrides) {
        if (o.action == action)
            return &o;
        if (o.everyAction())
            every = &o;
    }
    return every;
}

} // namespace

QByteArray UserActionsTable::currentAction() const
{
    const int row = currentRow() >= 0 ? currentRow() : 0;
    return row < int(m_rows.size()) ? m_rows[size_t(row)].action : QByteArray();
}

void UserActionsTable::setActions(const UserActions& loaded, const std::vector<Override>& overrides)
{
    const QByteArray current = currentRow() >= 0 ? currentAction() : QByteArray();
    // What support looks for first: denied and banned actions, then the ones with counters,
    // then the policies this user has not touched; alphabetical within each.
    m_rows.clear();
    for (const auto& [action, row] : loaded.rows)
        m_rows.push_back(row);
    auto rank = [](const UserActionRow& row) {
        const bool denied = row.next && (!row.next->allowed || row.next->tier == Tier::Banned);
        return denied ? 0 : row.hasKeys ? 1 : 2;
    };
    std::stable_sort(
        m_rows.begin(), m_rows.end(),
        [&](const UserActionRow& a, const UserActionRow& b) { return rank(a) < rank(b); });
    setRowCount(int(m_rows.size()));
    const auto right = Qt::AlignRight | Qt::AlignVCenter;
    for (int r = 0; r < int(m_rows.size()); ++r) {
        const UserActionRow& row = m_rows[size_t(r)];
        setCell(r, Action, displayId(row.action));
        QString windows = row.policy ? row.policy->windowsText() : tr("no policy");
        const Override* o = row.policy ? overrideFor(overrides, row.action) : nullptr;
        const QString policyWindows = windows;
        if (o) // the override's, short; the policy's in the tooltip
            windows = o->kind == OverrideKind::Unlimited
                          ? overrideWhatText(o->kind, o->windows)
                          : tr("%1 (override)").arg(overrideWhatText(o->kind, o->windows));
        if (!row.keyWindows.isEmpty())
            windows += tr(" (other keys: %1)").arg(QString::fromUtf8(row.keyWindows.join(", ")));
        setCell(r, Windows, windows);
        if (o)
            item(r, Windows)
                ->setToolTip(tr("%1\nthe policy gives everyone %2").arg(windows, policyWindows));
        if (row.usage) {
            // Banned, the counter stands still: the rate of refused hits is what an unban
            // lets back in.
            const QString refusedRate =
                row.refusedPerSecond && *row.refusedPerSecond > 0
                    ? tr(" · %1 refused").arg(hitRateText(*row.refusedPerSecond))
                    : QString();
            setCell(r, Count,
                    QStringLiteral("%1 / %2").arg(row.usage->count).arg(row.usage->limit) +
                        refusedRate,
                    right);
            if (!refusedRate.isEmpty())
                item(r, Count)->setToolTip(
                    tr("Hits of %1 refused under bans, per second over the last %2 s (the "
                       "statistics): every banned user of %1 together.")
                        .arg(displayId(row.action))
                        .arg(kRefusedRateSeconds));
            setCell(r, Remaining,
                    QString::number(
                        remainingShown(row.usage->limit, row.usage->count, row.banDeadline != 0)),
                    right);
            const bool refused = row.next->tier == Tier::Banned || !row.next->allowed;
            // A shadow policy refuses nobody: what enforcing it would answer, in brackets.
            const bool shadow = row.policy && row.policy->shadow && refused;
            setCell(r, Verdict,
                    shadow ? tr("yes, shadow policy (enforced: %1)").arg(verdictText(*row.next))
                           : verdictText(*row.next));
            if (refused)
                item(r, Verdict)
                    ->setForeground(toneColor(shadow ? Tone::Warn : Tone::Denied, palette()));
        } else {
            setCell(r, Count, QString(), right);
            setCell(r, Remaining, QString(), right);
            setCell(r, Verdict,
                    !row.error.isEmpty() ? row.error
                    : row.policy         ? QStringLiteral("\u2014")
                                         : tr("no policy: not limited"));
        }
        setCell(r, Reset, QString(), right);
        if (!current.isNull() && row.action == current)
            setCurrentCell(r, Action); // the 2 s reload keeps support's row
    }
    tick(); // fills the countdowns, so the columns are sized for them
    fitColumns();
}

void UserActionsTable::tick()
{
    const qint64 steady = QDeadlineTimer::current().deadline();
    for (int r = 0; r < int(m_rows.size()); ++r) {
        const UserActionRow& row = m_rows[size_t(r)];
        // Banned: what resets is the ban. Without counters no window runs: nothing resets.
        if (QTableWidgetItem* cell = item(r, Reset))
            cell->setText(row.banDeadline != 0
                              ? banCountdown(row.banDeadline < 0 ? -1 : row.banDeadline - steady)
                          : row.usage && row.hasKeys ? formatCountdown(row.resetDeadline - steady)
                                                     : QString());
    }
}

} // namespace tollgate::ui
