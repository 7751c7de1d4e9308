#pragma once

class QSplitter;
class QTableView;

namespace tollgate::ui {

/// Keeps the last row of `table` whole while it scrolls: whenever its viewport is not a whole
/// number of rows high, the spare pixels go to the pane beside it in `splitter` (which holds
/// the table, directly or inside a widget of its own). A half row at the bottom reads as a cut
/// page; whole rows with a scrollbar read as "there is more". The table's rows must be of one
/// fixed height.
void keepWholeRows(QTableView* table, QSplitter* splitter);

} // namespace tollgate::ui
