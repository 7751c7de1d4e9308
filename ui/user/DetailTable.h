#pragma once

#include <QTableWidget>

namespace tollgate::ui {

/// The read-only tables of the user detail: whole rows selected, no editing, no row header,
/// rows of one text line, the last column taking the rest of the width.
class DetailTable : public QTableWidget
{
    Q_OBJECT
public:
    DetailTable(const QString& objectName, const QStringList& headers, QWidget* parent = nullptr);

protected:
    /// A cell with its text as tooltip (long reasons and ids stay readable).
    void setCell(int row, int column, const QString& text,
                 Qt::Alignment alignment = Qt::AlignLeft | Qt::AlignVCenter);
    /// Columns as wide as their content, the last one taking the rest of the width.
    void fitColumns();
};

} // namespace tollgate::ui
