#include "ui/common/RowCopy.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QMenu>
#include <QTableView>
#include <QTreeView>
#include <algorithm>
#include <set>
#include <vector>

namespace tollgate::ui {

namespace {

QString field(const QVariant& value)
{
    QString text = value.toString();
    for (QChar& c : text)
        if (c == u'\t' || c == u'\n' || c == u'\r')
            c = u' ';
    return text;
}

const QHeaderView* columnsHeader(const QAbstractItemView* view)
{
    if (auto* table = qobject_cast<const QTableView*>(view))
        return table->horizontalHeader();
    if (auto* tree = qobject_cast<const QTreeView*>(view))
        return tree->header();
    return nullptr;
}

} // namespace

CopiedRows selectedRowsText(const QAbstractItemView* view, bool withHeaders, qint64 maxRows)
{
    CopiedRows copied;
    const QItemSelectionModel* selection = view->selectionModel();
    const QAbstractItemModel* model = view->model();
    if (!selection || !model)
        return copied;
    // From the ranges, not selectedIndexes(): Ctrl+A on a million rows is one range, not
    // millions of indexes. The console's tables are flat: top-level rows only.
    std::vector<std::pair<int, int>> spans;
    std::set<int> columns;
    for (const QItemSelectionRange& range : selection->selection()) {
        if (range.parent().isValid())
            continue;
        spans.emplace_back(range.top(), range.bottom());
        for (int column = range.left(); column <= range.right(); ++column)
            columns.insert(column);
    }
    std::sort(spans.begin(), spans.end());
    std::vector<int> shown; // selected columns, in the order on screen
    const QHeaderView* header = columnsHeader(view);
    for (int visual = 0; visual < model->columnCount(); ++visual) {
        const int column = header ? header->logicalIndex(visual) : visual;
        if (columns.count(column) && !(header && header->isSectionHidden(column)))
            shown.push_back(column);
    }
    if (shown.empty())
        return copied;

    QStringList lines;
    auto addLine = [&](auto cell) {
        QStringList fields;
        for (int column : shown)
            fields << cell(column);
        lines << fields.join(u'\t');
    };
    if (withHeaders)
        addLine([&](int column) {
            return field(model->headerData(column, Qt::Horizontal, Qt::DisplayRole));
        });
    int next = 0; // ranges may overlap: each row once
    for (const auto& [top, bottom] : spans) {
        const int first = std::max(top, next);
        copied.selected += std::max(0, bottom - first + 1);
        for (int row = first; row <= bottom && copied.rows < maxRows; ++row, ++copied.rows)
            addLine([&](int column) { return field(model->index(row, column).data()); });
        next = std::max(next, bottom + 1);
    }
    copied.text = lines.join(u'\n');
    return copied;
}

CopiedRows copySelectedRows(const QAbstractItemView* view, bool withHeaders)
{
    CopiedRows copied = selectedRowsText(view, withHeaders);
    if (copied.rows > 0)
        QApplication::clipboard()->setText(copied.text);
    return copied;
}

void addCopyActions(QMenu* menu, const QAbstractItemView* view,
                    const std::function<void(bool withHeaders)>& copy)
{
    const bool selected = view->selectionModel() && view->selectionModel()->hasSelection();
    QAction* rows = menu->addAction(QObject::tr("&Copy"), menu, [copy] { copy(false); });
    rows->setObjectName(QStringLiteral("copyRowsAction"));
    rows->setShortcut(QKeySequence::Copy); // shown; the key itself is handled by the shell
    rows->setEnabled(selected);
    QAction* withHeaders =
        menu->addAction(QObject::tr("Copy with &headers"), menu, [copy] { copy(true); });
    withHeaders->setObjectName(QStringLiteral("copyRowsWithHeadersAction"));
    withHeaders->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+C")));
    withHeaders->setEnabled(selected);
}

} // namespace tollgate::ui
