#include "ui/common/WholeRows.h"

#include <QEvent>
#include <QHeaderView>
#include <QPointer>
#include <QSplitter>
#include <QTableView>
#include <QTimer>

namespace tollgate::ui {

namespace {

class WholeRowsKeeper : public QObject
{
public:
    WholeRowsKeeper(QTableView* table, QSplitter* splitter)
        : QObject(table), m_table(table), m_splitter(splitter)
    {
        table->viewport()->installEventFilter(this);
        // A scrollbar comes and goes with the rows: count them again when they change.
        QAbstractItemModel* model = table->model();
        connect(model, &QAbstractItemModel::modelReset, this, &WholeRowsKeeper::schedule);
        connect(model, &QAbstractItemModel::rowsInserted, this, &WholeRowsKeeper::schedule);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &WholeRowsKeeper::schedule);
    }

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Resize)
            schedule();
        return QObject::eventFilter(watched, event);
    }

private:
    // After the resize that asked for it: the splitter is not re-entered from its own layout.
    void schedule()
    {
        if (m_scheduled)
            return;
        m_scheduled = true;
        QTimer::singleShot(0, this, [this] {
            m_scheduled = false;
            fit();
        });
    }

    void fit()
    {
        if (!m_splitter || !m_table->isVisible())
            return;
        const int rowHeight = m_table->verticalHeader()->defaultSectionSize();
        const int height = m_table->viewport()->height();
        const int spare = rowHeight > 0 ? height % rowHeight : 0;
        const bool scrolls = qint64(m_table->model()->rowCount()) * rowHeight > height;
        if (!scrolls || spare == 0)
            return;
        int pane = -1; // the splitter's child holding the table
        for (QWidget* w = m_table; w && pane < 0; w = w->parentWidget())
            pane = w->parentWidget() == m_splitter ? m_splitter->indexOf(w) : -1;
        if (pane < 0 || m_splitter->count() < 2)
            return;
        const int other = pane + 1 < m_splitter->count() ? pane + 1 : pane - 1;
        QList<int> sizes = m_splitter->sizes();
        sizes[pane] -= spare;
        sizes[other] += spare;
        m_splitter->setSizes(sizes);
    }

    QTableView* m_table;
    QPointer<QSplitter> m_splitter;
    bool m_scheduled = false;
};

} // namespace

void keepWholeRows(QTableView* table, QSplitter* splitter)
{
    new WholeRowsKeeper(table, splitter);
}

} // namespace tollgate::ui
