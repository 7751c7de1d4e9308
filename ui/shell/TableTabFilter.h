#pragma once

#include <QObject>

namespace tollgate::ui::shell {

/// Tab moves focus out of every table and list of the application instead of walking its
/// cells (arrow keys do that), so keyboard users can reach the buttons after a table.
/// Installed once on the application; applies to views created later, dialogs included.
class TableTabFilter : public QObject
{
    Q_OBJECT
public:
    /// Installs one filter on qApp (idempotent).
    static void install();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    using QObject::QObject;
};

} // namespace tollgate::ui::shell
