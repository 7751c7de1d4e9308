#include "ui/keys/KeyActions.h"

#include "tollgate/KeySchema.h"
#include "ui/common/DisplayText.h"
#include "ui/common/RowCopy.h"
#include "ui/common/Session.h"
#include "ui/keys/ValueViewer.h"
#include "ui/user/UserDetailDialog.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QClipboard>
#include <QMenu>

namespace tollgate::ui {

namespace {

// One window per key or user: opening it again raises the one that is open.
template <typename Dialog> QWidget* raiseExisting(QWidget* owner, const QString& name)
{
    for (Dialog* open : owner->findChildren<Dialog*>()) {
        if (open->property("tollgateFor").toString() == name) {
            open->raise();
            open->activateWindow();
            return open;
        }
    }
    return nullptr;
}

template <typename Dialog> QWidget* showWindow(Dialog* dialog, const QString& name)
{
    dialog->setProperty("tollgateFor", name);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowFlag(Qt::Window);
    dialog->show();
    return dialog;
}

} // namespace

KeyActions::KeyActions(Session* session, QAbstractItemView* view, KeyAt keyAt,
                       std::function<void()> deleteSelected)
    : QObject(view), m_session(session), m_view(view), m_keyAt(std::move(keyAt)),
      m_delete(std::move(deleteSelected))
{
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QAbstractItemView::customContextMenuRequested, this, [this](const QPoint& at) {
        const QModelIndex index = m_view->indexAt(at);
        if (!index.isValid())
            return;
        QMenu* menu = menuFor(index);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_view->viewport()->mapToGlobal(at));
    });
    // Double-click, and Enter on the current row, open the value (activated covers both).
    connect(view, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
        const QByteArray key = m_keyAt(index);
        if (!key.isEmpty())
            this->view(key);
    });
}

QWidget* KeyActions::view(const QByteArray& key)
{
    const QString name = QStringLiteral("key:") + QString::fromLatin1(key.toHex());
    if (QWidget* open = raiseExisting<ValueViewer>(m_view, name))
        return open;
    return showWindow(new ValueViewer(m_session, key, m_view), name);
}

QWidget* KeyActions::openUser(const QByteArray& key)
{
    const KeySchema::Parsed parsed = m_session->schema().parse(key);
    if (parsed.user.isEmpty())
        return nullptr;
    const QString name = QStringLiteral("user:") + QString::fromLatin1(parsed.user.toHex());
    if (QWidget* open = raiseExisting<UserDetailDialog>(m_view, name))
        return open;
    return showWindow(new UserDetailDialog(m_session, parsed.user, m_view), name);
}

QMenu* KeyActions::menuFor(const QModelIndex& index)
{
    const QByteArray key = m_keyAt(index);
    auto* menu = new QMenu(m_view);
    menu->setObjectName(QStringLiteral("keyContextMenu"));
    if (key.isEmpty())
        return menu;
    QAction* value = menu->addAction(tr("&View value"), this, [this, key] { view(key); });
    value->setObjectName(QStringLiteral("viewValueAction"));
    QAction* copy = menu->addAction(tr("&Copy key"), this, [key] {
        QApplication::clipboard()->setText(QString::fromUtf8(key));
    });
    copy->setObjectName(QStringLiteral("copyKeyAction"));
    // The selected rows, as on every other table.
    addCopyActions(menu, m_view,
                   [view = m_view](bool withHeaders) { copySelectedRows(view, withHeaders); });
    const KeySchema::Parsed parsed = m_session->schema().parse(key);
    if (!parsed.user.isEmpty()) {
        QAction* user = menu->addAction(tr("Open &user %1").arg(displayId(parsed.user)), this,
                                        [this, key] { openUser(key); });
        user->setObjectName(QStringLiteral("openUserAction"));
    }
    if (m_delete) {
        menu->addSeparator();
        QAction* remove = menu->addAction(tr("&Delete\u2026"), this, m_delete);
        remove->setObjectName(QStringLiteral("deleteKeyAction"));
        remove->setProperty("tollgateWrite", int(Session::Write::DeleteKey));
        const QString blocked = m_session->writeBlockedReason(Session::Write::DeleteKey);
        remove->setEnabled(blocked.isEmpty());
        remove->setToolTip(blocked);
    }
    return menu;
}

} // namespace tollgate::ui
