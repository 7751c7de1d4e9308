#include "ui/shell/ShortcutsDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tollgate::ui::shell {

namespace {

QList<QPair<QString, QString>> menuShortcuts(QWidget* window)
{
    QList<QPair<QString, QString>> rows;
    auto* main = qobject_cast<QMainWindow*>(window);
    if (!main)
        return rows;
    for (QAction* menuAction : main->menuBar()->actions()) {
        QMenu* menu = menuAction->menu();
        if (!menu)
            continue;
        const QString menuName = QString(menuAction->text()).remove(QLatin1Char('&'));
        for (QAction* action : menu->actions()) {
            if (action->shortcut().isEmpty())
                continue;
            const QString name = QString(action->text()).remove(QLatin1Char('&'));
            rows.append({action->shortcut().toString(QKeySequence::NativeText),
                         menuName + QStringLiteral(" \u203a ") + name});
        }
    }
    return rows;
}

QList<QPair<QString, QString>> pageShortcuts()
{
    using Row = QPair<QString, QString>;
    return {
        Row{QObject::tr("Enter"), QObject::tr("In Find user: open the user")},
        Row{QObject::tr("Enter / double-click on a row"),
            QObject::tr("Open it: a subject's or audit entry's user, a key's value")},
        Row{QObject::tr("Ctrl+C in a table"),
            QObject::tr("Copy the selected rows, tab-separated (Ctrl+Shift+C: with the column "
                        "titles)")},
        Row{QObject::tr("Alt+underlined letter"),
            QObject::tr("Press that button or go to that field")},
        Row{QObject::tr("Tab / Shift+Tab"), QObject::tr("Next / previous control (leaves tables)")},
        Row{QObject::tr("Arrow keys"), QObject::tr("Move inside a table or list")},
        Row{QObject::tr("Enter in a dialog"), QObject::tr("Submit, once the input is valid")},
        Row{QObject::tr("Esc"), QObject::tr("Close the dialog without changing anything")},
        Row{QObject::tr("Right-click / Menu key / Shift+F10"),
            QObject::tr("Context menu of the row: copy, open its user or key")},
    };
}

} // namespace

ShortcutsDialog::ShortcutsDialog(QWidget* window, QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    const auto rows = menuShortcuts(window) + pageShortcuts();
    m_table = new QTableWidget(int(rows.size()), 2, this);
    m_table->setObjectName(QStringLiteral("shortcutsTableWidget"));
    m_table->setHorizontalHeaderLabels({tr("Keys"), tr("Does")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    for (int r = 0; r < int(rows.size()); ++r) {
        m_table->setItem(r, 0, new QTableWidgetItem(rows[r].first));
        m_table->setItem(r, 1, new QTableWidgetItem(rows[r].second));
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    const int width = m_table->horizontalHeader()->length() + 60;
    const int height = m_table->verticalHeader()->length() + m_table->horizontalHeader()->height();
    resize(qMax(520, width), qMin(640, height + 90));
}

} // namespace tollgate::ui::shell
