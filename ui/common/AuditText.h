#pragma once

#include "tollgate/AuditLog.h"

#include <QString>

namespace tollgate::ui {

/// How both audit views (the global Audit log page and a user's history) word an entry, so
/// the same event reads the same wherever it is looked at.

/// The "what", short for a column: the event name, or for overrides "override", "exemption"
/// (an unlimited override), "override removed".
QString auditEventText(const AuditEntry& entry);
/// The "what" in full, for a tooltip: what an override gives, read from the entry's detail
/// ("override: 200 per 1m, 2000 per 1h", "override: unlimited (exempt)").
QString auditEventToolTip(const AuditEntry& entry);
/// The scope: the action, "(all)" for a user-wide ban or an every-action override.
QString auditActionText(const AuditEntry& entry);

/// The "why": the reason, or the machine detail when there is no reason. Free text is made
/// safe for one line (displayId).
QString auditWhyText(const AuditEntry& entry);
/// The tooltip of the "why": reason and detail on two lines.
QString auditWhyToolTip(const AuditEntry& entry);

/// The end of what the event started: "2024-05-01 14:02:00", "permanent" for a ban or an
/// override without one, empty for events that have no end.
QString auditUntilText(const AuditEntry& entry);

} // namespace tollgate::ui
