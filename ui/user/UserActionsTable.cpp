#include "ui/user/UserActionsTable.h"

#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"

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

void UserActionsTable::setActions(const UserActions& loaded)
{
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
        if (!row.keyWindows.isEmpty())
            windows += tr(" (other keys: %1)").arg(QString::fromUtf8(row.keyWindows.join(", ")));
        setCell(r, Windows, windows);
        if (row.usage) {
            setCell(r, Count, QStringLiteral("%1 / %2").arg(row.usage->count).arg(row.usage->limit),
                    right);
            setCell(r, Remaining, QString::number(row.usage->remaining), right);
            const bool refused = row.next->tier == Tier::Banned || !row.next->allowed;
            // A shadow policy refuses nobody: what enforcing it would answer, in brackets.
            const bool shadow = row.policy && row.policy->shadow && refused;
            setCell(r, Verdict,
                    shadow ? tr("yes, shadow policy (enforced: %1)").arg(verdictText(*row.next))
                           : verdictText(*row.next));
            if (refused)
                item(r, Verdict)->setForeground(
                    toneColor(shadow ? Tone::Warn : Tone::Denied, palette()));
        } else {
            setCell(r, Count, QString(), right);
            setCell(r, Remaining, QString(), right);
            setCell(r, Verdict,
                    !row.error.isEmpty() ? row.error
                    : row.policy         ? QStringLiteral("\u2014")
                                         : tr("no policy: not limited"));
        }
        setCell(r, Reset, QString(), right);
    }
    tick(); // fills the countdowns, so the columns are sized for them
    fitColumns();
}

void UserActionsTable::tick()
{
    const qint64 steady = QDeadlineTimer::current().deadline();
    for (int r = 0; r < int(m_rows.size()); ++r) {
        const UserActionRow& row = m_rows[size_t(r)];
        // Without counters there is no window running: nothing resets.
        if (QTableWidgetItem* cell = item(r, Reset))
            cell->setText(row.usage && row.hasKeys ? formatCountdown(row.resetDeadline - steady)
                                                   : QString());
    }
}

} // namespace tollgate::ui
