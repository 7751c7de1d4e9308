#pragma once

#include "core/audit/AuditLog.h"

#include <QString>

namespace tollgate::ui {

/// How both audit views (the global Audit log page and a user's history) word an entry, so
/// the same event reads the same wherever it is looked at.

/// The "why": the reason, or the machine detail when there is no reason. Free text is made
/// safe for one line (displayId).
QString auditWhyText(const AuditEntry& entry);
/// The tooltip of the "why": reason and detail on two lines.
QString auditWhyToolTip(const AuditEntry& entry);

/// The end of what the event started: "2024-05-01 14:02:00", "permanent" for a ban without
/// one, empty for events that have no end.
QString auditUntilText(const AuditEntry& entry);

} // namespace tollgate::ui
