#pragma once

#include "tollgate/Policy.h"

#include <QWidget>

class QLineEdit;
class QPushButton;
class QSpinBox;
class QVBoxLayout;

namespace tollgate::ui {

/// The "Limits" rows of the policy editor: one window (e.g. "30s") and its limit per row, with
/// Remove buttons while there is more than one. The first row's widgets are windowLineEdit /
/// limitSpinBox, the next window2LineEdit / limit2SpinBox ... so tests can find them.
class WindowRows : public QWidget
{
    Q_OBJECT
public:
    explicit WindowRows(QWidget* parent = nullptr);

    /// Replaces every row with `windows` (one empty row when there are none).
    void setWindows(const std::vector<WindowLimit>& windows);
    void addRow(const QString& window, qint64 limit);
    int count() const { return int(m_rows.size()); }

    /// The windows as typed, or why one of them is not a duration.
    Result<std::vector<WindowLimit>> windows() const;

Q_SIGNALS:
    void edited();

private:
    struct Row
    {
        QWidget* row;
        QLineEdit* window;
        QSpinBox* limit;
        QPushButton* remove;
    };

    void removeRow(QWidget* row);
    void renameRows();

    QVBoxLayout* m_layout;
    QList<Row> m_rows;
};

} // namespace tollgate::ui
