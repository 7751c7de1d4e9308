#include "ui/user/DetailTable.h"

#include <QHeaderView>

namespace tollgate::ui {

DetailTable::DetailTable(const QString& objectName, const QStringList& headers, QWidget* parent)
    : QTableWidget(0, int(headers.size()), parent)
{
    setObjectName(objectName);
    setHorizontalHeaderLabels(headers);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setAlternatingRowColors(true);
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    horizontalHeader()->setStretchLastSection(true);
    setWordWrap(false);
}

void DetailTable::setCell(int row, int column, const QString& text, Qt::Alignment alignment)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(alignment);
    item->setToolTip(text);
    setItem(row, column, item);
}

void DetailTable::fitColumns()
{
    resizeColumnsToContents();
    horizontalHeader()->setSectionResizeMode(columnCount() - 1, QHeaderView::Stretch);
}

} // namespace tollgate::ui
