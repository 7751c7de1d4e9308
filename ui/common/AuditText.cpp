#include "ui/common/AuditText.h"

#include "ui/common/DisplayText.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace tollgate::ui {

namespace {

// A rollback or restore says which revision came back as which ("revision=N; from=M; ..."
// from policy_restore.lua): "revision 2 back as revision 5".
QString revisionBackText(const AuditEntry& entry)
{
    if (entry.event != QLatin1String("rollback") && entry.event != QLatin1String("restore"))
        return {};
    static const QRegularExpression pattern(QStringLiteral("^revision=(\\d+); from=(\\d+)"));
    const QRegularExpressionMatch match = pattern.match(entry.detail);
    if (!match.hasMatch())
        return {};
    return QCoreApplication::translate("AuditText", "revision %1 back as revision %2")
        .arg(match.captured(2), match.captured(1));
}

} // namespace

QString auditWhyText(const AuditEntry& entry)
{
    const QString reason = displayId(entry.reason.toUtf8());
    const QString detail = displayId(entry.detail.toUtf8());
    const QString back = revisionBackText(entry);
    if (!back.isEmpty())
        return reason.isEmpty() ? back : reason + QStringLiteral(" (") + back + QLatin1Char(')');
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
