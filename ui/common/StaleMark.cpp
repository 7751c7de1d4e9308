#include "ui/common/StaleMark.h"

#include "ui/common/Session.h"

#include <QWidget>

namespace tollgate::ui {

namespace {

void setStale(QWidget* widget, bool stale)
{
    if (widget->property("stale").toBool() == stale)
        return;
    widget->setProperty("stale", stale);
    if (!stale) {
        widget->setPalette(QPalette()); // nothing of its own: inherits everything again
        return;
    }
    const QColor grey = widget->palette().color(QPalette::Disabled, QPalette::Text);
    QPalette palette; // only the roles set here override what the widget inherits
    for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive})
        for (QPalette::ColorRole role :
             {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
            palette.setColor(group, role, grey);
    widget->setPalette(palette);
}

} // namespace

void markStaleWhileUnresponsive(Session* session, const QList<QWidget*>& widgets)
{
    for (QWidget* widget : widgets) {
        setStale(widget, !session->isResponsive());
        QObject::connect(session, &Session::responsivenessChanged, widget,
                         [widget](bool responsive) { setStale(widget, !responsive); });
        // Another session (a reconnect from the dialog) starts from fresh values.
        QObject::connect(session, &QObject::destroyed, widget,
                         [widget] { setStale(widget, false); });
    }
}

} // namespace tollgate::ui
