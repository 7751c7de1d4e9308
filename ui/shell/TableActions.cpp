#include "ui/shell/TableActions.h"

#include "ui/common/DisplayText.h"
#include "ui/common/RowCopy.h"
#include "ui/common/RowRoles.h"
#include "ui/shell/MainWindow.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMenu>
#include <QStatusBar>
#include <QTableView>
#include <QTreeView>

namespace tollgate::ui::shell {

namespace {

// Tables and trees only: lists are navigation and combo box pop-ups, not data.
QAbstractItemView* dataView(QObject* object)
{
    auto* view = qobject_cast<QAbstractItemView*>(object);
    return qobject_cast<QTableView*>(view) || qobject_cast<QTreeView*>(view) ? view : nullptr;
}

MainWindow* mainWindowOf(QWidget* widget)
{
    for (QWidget* w = widget; w; w = w->parentWidget())
        if (auto* main = qobject_cast<MainWindow*>(w))
            return main;
    return nullptr;
}

void copyRows(QAbstractItemView* view, bool withHeaders)
{
    const CopiedRows copied = copySelectedRows(view, withHeaders);
    MainWindow* main = mainWindowOf(view);
    if (!main || copied.rows == 0)
        return;
    const QLocale locale;
    main->statusBar()->showMessage(
        copied.rows < copied.selected
            ? QObject::tr("Copied the first %1 of %2 selected rows")
                  .arg(locale.toString(copied.rows), locale.toString(copied.selected))
            : QObject::tr("Copied %1")
                  .arg(copied.rows == 1 ? QObject::tr("1 row")
                                        : QObject::tr("%1 rows").arg(locale.toString(copied.rows))),
        4000);
}

} // namespace

void TableActions::install()
{
    if (qApp->findChild<TableActions*>(QString(), Qt::FindDirectChildrenOnly))
        return;
    qApp->installEventFilter(new TableActions(qApp));
}

QMenu* TableActions::menuFor(QAbstractItemView* view, const QModelIndex& index)
{
    auto* menu = new QMenu(view);
    menu->setObjectName(QStringLiteral("tableContextMenu"));
    addCopyActions(menu, view, [view](bool withHeaders) { copyRows(view, withHeaders); });
    MainWindow* main = mainWindowOf(view);
    const QByteArray user = index.data(RowUserRole).toByteArray();
    const QByteArray key = index.data(RowKeyRole).toByteArray();
    if (main && (!user.isEmpty() || !key.isEmpty()))
        menu->addSeparator();
    if (main && !user.isEmpty())
        menu->addAction(tr("Open &user %1").arg(boundedDisplayId(user, 64)), main,
                        [main, user] { main->openUser(user); })
            ->setObjectName(QStringLiteral("openUserAction"));
    if (main && !key.isEmpty())
        menu->addAction(tr("Open &key %1").arg(boundedDisplayId(key, 64)), main,
                        [main, key] { main->openKey(key); })
            ->setObjectName(QStringLiteral("openKeyAction"));
    return menu;
}

bool TableActions::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::KeyPress) {
        QAbstractItemView* view = dataView(watched);
        const auto* key = static_cast<QKeyEvent*>(event);
        if (view && key->matches(QKeySequence::Copy)) {
            copyRows(view, false);
            return true;
        }
        if (view && key->keyCombination() ==
                        QKeyCombination(Qt::ControlModifier | Qt::ShiftModifier, Qt::Key_C)) {
            copyRows(view, true);
            return true;
        }
    } else if (event->type() == QEvent::ContextMenu) {
        // A mouse's comes to the viewport, the Menu key's to the view itself.
        auto* widget = qobject_cast<QWidget*>(watched);
        QAbstractItemView* view = dataView(watched);
        if (!view && widget)
            view = dataView(widget->parent());
        if (!view || view->contextMenuPolicy() != Qt::DefaultContextMenu)
            return QObject::eventFilter(watched, event);
        const auto* request = static_cast<QContextMenuEvent*>(event);
        const bool byMouse = watched == view->viewport();
        const QModelIndex index = byMouse ? view->indexAt(request->pos()) : view->currentIndex();
        const QPoint at = byMouse ? request->globalPos()
                                  : view->viewport()->mapToGlobal(view->visualRect(index).center());
        QMenu* menu = menuFor(view, index);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(at);
        return true;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace tollgate::ui::shell
