#include "ui/shell/TableTabFilter.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QEvent>

namespace tollgate::ui::shell {

void TableTabFilter::install()
{
    if (qApp->findChild<TableTabFilter*>(QString(), Qt::FindDirectChildrenOnly))
        return;
    qApp->installEventFilter(new TableTabFilter(qApp));
}

bool TableTabFilter::eventFilter(QObject* watched, QEvent* event)
{
    // Polish comes once per widget before it is first shown: late enough that the page's own
    // set-up ran, early enough that no key press reached the view.
    if (event->type() == QEvent::Polish)
        if (auto* view = qobject_cast<QAbstractItemView*>(watched))
            view->setTabKeyNavigation(false);
    return QObject::eventFilter(watched, event);
}

} // namespace tollgate::ui::shell
