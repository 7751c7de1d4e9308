#pragma once

#include <QString>
#include <functional>

class QAbstractItemView;
class QMenu;

namespace tollgate::ui {

/// What copying a table's selection put on the clipboard.
struct CopiedRows
{
    QString text;
    qint64 rows = 0;     // rows in the text (headers not counted)
    qint64 selected = 0; // rows selected; more than `rows` when the copy was capped
};

/// The selected rows of `view` as tab-separated text, one line per row in view order, with the
/// visible columns that hold a selected cell (every visible one for whole rows) in their
/// on-screen order; `withHeaders` puts the column titles first. Tabs and line breaks inside a
/// cell become spaces, so a spreadsheet gets one cell per field. At most `maxRows` rows: a
/// million-row selection would hold the GUI thread for seconds.
CopiedRows selectedRowsText(const QAbstractItemView* view, bool withHeaders,
                            qint64 maxRows = 100'000);

/// selectedRowsText() on the clipboard.
CopiedRows copySelectedRows(const QAbstractItemView* view, bool withHeaders);

/// Adds "Copy" (Ctrl+C) and "Copy with headers" (Ctrl+Shift+C) to `menu`, enabled when
/// `view` has a selection; `copy(withHeaders)` copies. Every table's right-click menu offers
/// the same two.
void addCopyActions(QMenu* menu, const QAbstractItemView* view,
                    const std::function<void(bool withHeaders)>& copy);

} // namespace tollgate::ui
