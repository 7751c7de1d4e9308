#include "ui/common/AuditText.h"

#include "ui/common/DisplayText.h"

#include <QCoreApplication>

namespace tollgate::ui {

QString auditWhyText(const AuditEntry& entry)
{
    const QString reason = displayId(entry.reason.toUtf8());
    const QString detail = displayId(entry.detail.toUtf8());
    return reason.isEmpty() ? detail : reason;
}

QString auditWhyToolTip(const AuditEntry& entry)
{
    const QString detail = displayId(entry.detail.toUtf8());
    return detail.isEmpty() ? auditWhyText(entry)
                            : displayId(entry.reason.toUtf8()) + QLatin1Char('\n') + detail;
}

QString auditUntilText(const AuditEntry& entry)
{
    if (entry.untilMs > 0)
        return formatTime(entry.untilMs);
    const bool ban =
        entry.event == QLatin1String("ban") || entry.event == QLatin1String("auto_ban");
    return ban ? QCoreApplication::translate("AuditText", "permanent") : QString();
}

} // namespace tollgate::ui
