#include "ui/common/AuditText.h"

#include "ui/common/DisplayText.h"
#include "ui/common/OverrideText.h"

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

QString tr(const char* text)
{
    return QCoreApplication::translate("AuditText", text);
}

const QLatin1String kOverride("override");
const QLatin1String kOverrideDelete("override_delete");

// override_set.lua's detail: "unlimited", or "limit <window_ms>:<limit>,...".
std::optional<QString> overrideDetailText(const QString& detail)
{
    if (detail == QLatin1String("unlimited"))
        return overrideWhatText(OverrideKind::Unlimited, {});
    if (!detail.startsWith(QLatin1String("limit ")))
        return std::nullopt;
    const auto windows = overrideWindowsFromText(detail.mid(6).toUtf8());
    if (!windows)
        return std::nullopt;
    return overrideWhatText(OverrideKind::Limit, *windows);
}

} // namespace

QString auditEventText(const AuditEntry& entry)
{
    if (entry.event == kOverride)
        return entry.detail == QLatin1String("unlimited") ? tr("exemption") : tr("override");
    if (entry.event == kOverrideDelete)
        return tr("override removed");
    return displayId(entry.event.toUtf8());
}

QString auditEventToolTip(const AuditEntry& entry)
{
    if (entry.event == kOverride)
        if (const auto what = overrideDetailText(entry.detail))
            return tr("override: %1").arg(*what);
    if (entry.event == kOverrideDelete && entry.detail == QLatin1String("deleted=0"))
        return tr("override removed (none was in force)");
    return auditEventText(entry);
}

QString auditActionText(const AuditEntry& entry)
{
    const bool overrideEvent = entry.event == kOverride || entry.event == kOverrideDelete;
    if ((entry.action.isEmpty() && !entry.user.isEmpty()) ||
        (overrideEvent && entry.action == Override::kEveryAction))
        return tr("(all)");
    return displayId(entry.action);
}

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
    const QString detail = entry.event == kOverride || entry.event == kOverrideDelete
                               ? auditEventToolTip(entry)
                               : displayId(entry.detail.toUtf8());
    return detail.isEmpty() ? auditWhyText(entry)
                            : displayId(entry.reason.toUtf8()) + QLatin1Char('\n') + detail;
}

QString auditUntilText(const AuditEntry& entry)
{
    if (entry.untilMs > 0)
        return formatTime(entry.untilMs);
    const bool lasting = entry.event == QLatin1String("ban") ||
                         entry.event == QLatin1String("auto_ban") || entry.event == kOverride;
    return lasting ? tr("permanent") : QString();
}

} // namespace tollgate::ui
