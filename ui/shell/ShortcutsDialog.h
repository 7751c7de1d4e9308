#pragma once

#include <QDialog>

class QTableWidget;

namespace tollgate::ui::shell {

/// Help › Keyboard shortcuts (F1): every shortcut of the window's menus, read from the
/// actions themselves so the list cannot drift from what the keys do, plus the keys that
/// work inside pages and dialogs.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ShortcutsDialog(QWidget* window, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};

} // namespace tollgate::ui::shell
