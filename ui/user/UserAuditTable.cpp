#include "ui/user/UserAuditTable.h"

#include "ui/common/AuditText.h"
#include "ui/common/DisplayText.h"

namespace tollgate::ui {

UserAuditTable::UserAuditTable(QWidget* parent)
    : DetailTable(QStringLiteral("auditTableWidget"),
                  {tr("Time"), tr("Event"), tr("Action"), tr("Actor"), tr("Reason"), tr("Until")},
                  parent)
{
}

void UserAuditTable::setEntries(const std::vector<AuditEntry>& entries)
{
    setRowCount(int(entries.size()));
    for (int r = 0; r < int(entries.size()); ++r) {
        const AuditEntry& entry = entries[size_t(r)];
        setCell(r, Time, formatTime(entry.timeMs));
        setCell(r, Event, auditEventText(entry));
        item(r, Event)->setToolTip(auditEventToolTip(entry));
        setCell(r, Action, auditActionText(entry));
        setCell(r, Actor, displayId(entry.actor.toUtf8()));
        // Worded like the global Audit log page: the same event reads the same in both.
        setCell(r, Reason, auditWhyText(entry));
        item(r, Reason)->setToolTip(auditWhyToolTip(entry));
        setCell(r, Until, auditUntilText(entry));
    }
    fitColumns();
}

} // namespace tollgate::ui
