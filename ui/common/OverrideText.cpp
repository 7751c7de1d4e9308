#include "ui/common/OverrideText.h"

#include "core/policies/Duration.h"
#include "ui/common/DisplayText.h"

#include <QCoreApplication>
#include <QStringList>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("OverrideText", text);
}

} // namespace

QString overrideScopeText(const QByteArray& action)
{
    return action == Override::kEveryAction ? tr("all actions") : displayId(action);
}

QString overrideSetText(const Override& stored)
{
    return tr("Override set: %1 on %2, %3.")
        .arg(overrideWhatText(stored.kind, stored.windows), overrideScopeText(stored.action),
             stored.isPermanent() ? tr("permanent")
                                  : tr("until %1").arg(formatTime(stored.untilMs)));
}

QString overrideWhatText(OverrideKind kind, const std::vector<WindowLimit>& windows)
{
    if (kind == OverrideKind::Unlimited)
        return tr("unlimited (exempt)");
    Override shape; // core words the windows, as the CLI shows them
    shape.windows = windows;
    return shape.describe();
}

QString overrideEndText(qint64 untilMs, qint64 nowMs)
{
    if (untilMs <= 0)
        return tr("permanent");
    return tr("in %1 (%2)").arg(formatCountdown(untilMs - nowMs), formatTime(untilMs));
}

QString windowsInputText(const std::vector<WindowLimit>& windows)
{
    QStringList parts;
    for (const WindowLimit& window : windows)
        parts << formatDuration(window.windowMs) + QLatin1Char(':') + QString::number(window.limit);
    return parts.join(QLatin1Char(','));
}

std::vector<WindowLimit> scaledWindows(const std::vector<WindowLimit>& windows, qint64 factor)
{
    std::vector<WindowLimit> scaled = windows;
    for (WindowLimit& window : scaled)
        window.limit = qMin(Policy::kMaxLimit, window.limit * factor);
    return scaled;
}

} // namespace tollgate::ui
