#include "ui/user/UserOverridesTable.h"

#include "ui/common/DisplayText.h"
#include "ui/common/OverrideText.h"

#include <QDateTime>

namespace tollgate::ui {

UserOverridesTable::UserOverridesTable(QWidget* parent)
    : DetailTable(QStringLiteral("overridesTableWidget"),
                  {tr("Scope"), tr("Gives"), tr("Ends"), tr("Actor"), tr("Reason"), tr("Set")},
                  parent)
{
}

void UserOverridesTable::setOverrides(std::vector<Override> overrides)
{
    // Keep the selection on the same scope across the 2 s reloads.
    const Override* before = selected();
    const QByteArray selectedAction = before ? before->action : QByteArray();
    m_overrides = std::move(overrides); // sorted by action (OverrideStore::ofUser)
    setRowCount(int(m_overrides.size()));
    for (int r = 0; r < int(m_overrides.size()); ++r) {
        const Override& o = m_overrides[size_t(r)];
        setCell(r, Scope, overrideScopeText(o.action));
        setCell(r, What, overrideWhatText(o.kind, o.windows));
        setCell(r, Ends, QString());
        setCell(r, Actor, displayId(o.actor.toUtf8()));
        setCell(r, Reason, displayId(o.reason.toUtf8()));
        setCell(r, Set, o.setMs > 0 ? formatTime(o.setMs) : tr("unknown"));
        if (!selectedAction.isNull() && o.action == selectedAction)
            selectRow(r);
    }
    tick(); // fills the countdowns, so the columns are sized for them
    fitColumns();
}

const Override* UserOverridesTable::selected() const
{
    const int row = currentRow();
    if (row < 0 || row >= int(m_overrides.size()) || !selectionModel()->isRowSelected(row))
        return nullptr;
    return &m_overrides[size_t(row)];
}

void UserOverridesTable::tick()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (int r = 0; r < int(m_overrides.size()); ++r)
        if (QTableWidgetItem* cell = item(r, Ends))
            cell->setText(overrideEndText(m_overrides[size_t(r)].untilMs, now));
}

} // namespace tollgate::ui
