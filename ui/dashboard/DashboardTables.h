#pragma once

#include <QMap>
#include <QString>
#include <vector>

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace tollgate::ui {

/// A dashboard table: rows to read and open, not edit; no row numbers.
QTableView* makeDashboardTable(QAbstractItemModel* model, const QString& name, QWidget* parent);

/// Column widths that do not jump as the data changes: each column not in `stretched` is as
/// wide as its header or its sample in `samples` (the widest value it usually shows; a longer
/// one is elided, its tooltip has it all), the `stretched` ones (names, ids) share the rest.
/// The table's minimum width then holds every column, each stretched one at `minimumStretch`,
/// so it never scrolls sideways.
void fixColumnWidths(QTableView* view, const std::vector<int>& stretched,
                     const QMap<int, QString>& samples, int minimumStretch);
/// The width fixColumnWidths() gives a column that is not stretched.
int fixedColumnWidth(const QTableView* view, int column, const QString& sample);

} // namespace tollgate::ui
