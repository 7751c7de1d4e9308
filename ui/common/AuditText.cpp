#include "ui/common/AuditText.h"

#include "ui/common/DisplayText.h"
#include "ui/common/OverrideText.h"

#include <QCoreApplication>

namespace tollgate::ui {

namespace {

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
    std::vector<WindowLimit> windows;
    for (const QString& pair : detail.mid(6).split(QLatin1Char(','))) {
        const QStringList parts = pair.split(QLatin1Char(':'));
        bool okMs = false;
        bool okLimit = false;
        const WindowLimit window{parts.value(1).toLongLong(&okLimit),
                                 parts.value(0).toLongLong(&okMs)};
        if (parts.size() != 2 || !okMs || !okLimit)
            return std::nullopt;
        windows.push_back(window);
    }
    return overrideWhatText(OverrideKind::Limit, windows);
}

} // namespace

QString auditEventText(const AuditEntry& entry)
{
    if (entry.event == kOverride)
        if (const auto what = overrideDetailText(entry.detail))
            return tr("override: %1").arg(*what);
    if (entry.event == kOverrideDelete)
        return entry.detail == QLatin1String("deleted=0") ? tr("override removed (none was set)")
                                                         : tr("override removed");
    return displayId(entry.event.toUtf8());
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
    const bool lasting = entry.event == QLatin1String("ban") ||
                         entry.event == QLatin1String("auto_ban") || entry.event == kOverride;
    return lasting ? tr("permanent") : QString();
}

} // namespace tollgate::ui
