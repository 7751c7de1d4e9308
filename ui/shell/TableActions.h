#pragma once

#include <QObject>

class QAbstractItemView;
class QMenu;
class QModelIndex;

namespace tollgate::ui::shell {

/// What every table and tree of the console does, without each page wiring it: Ctrl+C copies
/// the selected rows as tab-separated text (Ctrl+Shift+C with the column titles first), and a
/// right-click (or the Menu key) offers Copy, Copy with headers, and Open user / Open key when
/// the row names one (ui/common/RowRoles.h). Views with a menu of their own
/// (Qt::CustomContextMenu, e.g. the Keys page's) keep it. Installed once on the application;
/// user and key windows open through the MainWindow the view belongs to.
class TableActions : public QObject
{
    Q_OBJECT
public:
    /// Installs one filter on qApp (idempotent).
    static void install();

    /// The right-click menu for `index` of `view`, for tests; the caller owns it.
    static QMenu* menuFor(QAbstractItemView* view, const QModelIndex& index);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    using QObject::QObject;
};

} // namespace tollgate::ui::shell
