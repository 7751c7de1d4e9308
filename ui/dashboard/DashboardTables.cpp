#include "ui/dashboard/DashboardTables.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <algorithm>

namespace tollgate::ui {

QTableView* makeDashboardTable(QAbstractItemModel* model, const QString& name, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    view->horizontalHeader()->setMinimumSectionSize(view->fontMetrics().averageCharWidth() * 4);
    return view;
}

int fixedColumnWidth(const QTableView* view, int column, const QString& sample)
{
    // The cell's text and its margins, as the item delegate lays them out.
    const int padding =
        2 * (view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1) + 6;
    return std::max(view->horizontalHeader()->sectionSizeHint(column),
                    view->fontMetrics().horizontalAdvance(sample) + padding);
}

void fixColumnWidths(QTableView* view, const std::vector<int>& stretched,
                     const QMap<int, QString>& samples, int minimumStretch)
{
    QHeaderView* header = view->horizontalHeader();
    int needed = 0;
    for (int column = 0; column < view->model()->columnCount(); ++column) {
        if (std::find(stretched.begin(), stretched.end(), column) != stretched.end()) {
            header->setSectionResizeMode(column, QHeaderView::Stretch);
            needed += view->isColumnHidden(column) ? 0 : minimumStretch;
            continue;
        }
        const int width = fixedColumnWidth(view, column, samples.value(column));
        header->setSectionResizeMode(column, QHeaderView::Fixed);
        header->resizeSection(column, width);
        needed += view->isColumnHidden(column) ? 0 : width;
    }
    needed += 2 * view->frameWidth() + view->verticalScrollBar()->sizeHint().width();
    view->setMinimumWidth(needed);
}

} // namespace tollgate::ui
