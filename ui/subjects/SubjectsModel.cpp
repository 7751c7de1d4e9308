#include "ui/subjects/SubjectsModel.h"

#include "tollgate/Result.h"
#include "ui/subjects/SubjectFigures.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFont>
#include <QThreadPool>
#include <utility>

namespace tollgate::ui {

namespace {

constexpr qint64 kSliceMs = 4;      // GUI-thread time per slice of updates
// New rows reach the view at most this often: each announcement repaints the page (~5 ms at
// 1280x800), so at 100 ms a load spent 0.5 us of GUI CPU per subject on them alone.
constexpr qint64 kAnnounceMs = 250;
// Until the table holds this many rows, new ones are announced at once: the first screenfuls
// appear as they are read, for a few dozen repaints in all.
constexpr size_t kAnnounceAtOnceRows = 5'000;
constexpr size_t kPrefetchRows = 16; // how far ahead a slice loads the rows' index entries

} // namespace

SubjectsModel::SubjectsModel(QObject* parent) : QAbstractTableModel(parent)
{
    m_slicer.setInterval(0);
    m_slicer.setSingleShot(true);
    connect(&m_slicer, &QTimer::timeout, this, &SubjectsModel::applySlice);
    m_announceDue.setSingleShot(true);
    connect(&m_announceDue, &QTimer::timeout, this, &SubjectsModel::announceAppended);
}

SubjectsModel::~SubjectsModel() = default;

int SubjectsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_order.size());
}

int SubjectsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void SubjectsModel::enqueue(std::vector<Subject> batch, quint16 pass)
{
    if (batch.empty())
        return;
    m_pending.push_back({std::move(batch), 0, pass});
    if (!m_ordering && !m_slicer.isActive())
        m_slicer.start();
}

void SubjectsModel::finishPass(quint16 pass)
{
    m_finishedPass = pass;
    if (m_pending.empty() && !m_slicer.isActive())
        m_slicer.start(); // the slicer takes it from here, after anything queued
}

void SubjectsModel::applySlice()
{
    if (m_ordering)
        return;
    if (m_snapshotOut && m_snapshotOut->load()) { // the worker is letting go of it just now
        m_slicer.start();
        return;
    }
    QElapsedTimer clock;
    clock.start();
    const qint64 now = steadyNowMs();
    bool updated = false;
    std::vector<quint32> appended;
    int done = 0;
    while (!m_pending.empty() && ((++done & 63) != 0 || clock.elapsed() < kSliceMs)) {
        PendingBatch& batch = m_pending.front();
        // The index entry of the row kPrefetchRows ahead starts loading now, so it is there
        // when that row's turn comes (a batch's first rows, as it starts).
        for (size_t ahead = batch.next == 0 ? 0 : batch.next + kPrefetchRows;
             ahead <= batch.next + kPrefetchRows && ahead < batch.rows.size(); ++ahead)
            m_store.prefetch(batch.rows[ahead]);
        const auto [storeRow, added] = m_store.apply(batch.rows[batch.next], now, batch.pass);
        if (++batch.next == batch.rows.size())
            m_pending.pop_front();
        if (!added) {
            updated = true;
            continue;
        }
        m_appendedSinceOrder = true;
        const CompactRow& row = m_store.row(storeRow);
        if (m_filter.isEmpty() ||
            m_filter.accepts(
                row, m_store.user(storeRow), m_store.action(storeRow),
                {m_marks.get(), QDateTime::currentMSecsSinceEpoch(), &shadowActions()}))
            appended.push_back(quint32(storeRow));
    }
    // New rows and changed ones are announced at most every kAnnounceMs: each announcement
    // makes the view re-measure its rows and repaint. Announcing whenever the queue ran dry, as
    // it does after every batch while the GUI keeps up, repainted the page ~120 times a second
    // while loading, half the GUI thread's CPU (so did the few rows a first pass reads again,
    // one in most slices); what waits is announced by a timer once it is due.
    m_unannounced.insert(m_unannounced.end(), appended.begin(), appended.end());
    m_changedUnannounced = m_changedUnannounced || updated;
    if (m_order.size() < kAnnounceAtOnceRows || !m_announced.isValid() ||
        m_announced.elapsed() >= kAnnounceMs)
        announceAppended();
    else if ((!m_unannounced.empty() || m_changedUnannounced) && !m_announceDue.isActive())
        m_announceDue.start(int(kAnnounceMs - m_announced.elapsed()));
    if (done > 0)
        Q_EMIT sliceApplied();
    if (!m_pending.empty()) {
        m_slicer.start();
    } else if (m_finishedPass != 0) {
        // Rows the pass did not see leave; rows it appended move to their sorted place, the
        // others stay where the operator sees them.
        m_retirePass = std::exchange(m_finishedPass, 0);
        requestOrder(!(m_appendedSinceOrder && m_sort.column >= 0));
    }
}

void SubjectsModel::announceAppended()
{
    m_announceDue.stop();
    m_announced.start();
    // The view repaints what it shows; no per-row signals.
    if (std::exchange(m_changedUnannounced, false) && !m_order.empty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_order.size()) - 1, ColumnCount - 1));
    if (m_unannounced.empty())
        return;
    const int first = int(m_order.size());
    beginInsertRows({}, first, first + int(m_unannounced.size()) - 1);
    m_order.insert(m_order.end(), m_unannounced.begin(), m_unannounced.end());
    m_unannounced.clear();
    endInsertRows();
}

void SubjectsModel::sort(int column, Qt::SortOrder order)
{
    m_sort = {column, order};
    requestOrder();
}

void SubjectsModel::setFilter(const SubjectFilter& filter)
{
    SubjectFilter folded = filter;
    folded.text = filter.text.toLower();
    if (folded == m_filter)
        return;
    m_filter = folded;
    requestOrder();
}

void SubjectsModel::setOverrideMarks(SharedOverrideMarks marks)
{
    if (!marks || marks == m_marks)
        return;
    const bool wasEmpty = m_marks->isEmpty();
    m_marks = std::move(marks);
    if (m_filter.state == SubjectFilter::State::Overridden ||
        m_filter.state == SubjectFilter::State::Exempt)
        requestOrder();
    // One whole-range signal; the view repaints only what it shows.
    if (!m_order.empty() && !(wasEmpty && m_marks->isEmpty()))
        Q_EMIT dataChanged(index(0, Ban), index(int(m_order.size()) - 1, Ban));
}

void SubjectsModel::setPolicies(SharedActionPolicies policies)
{
    if (!policies || policies == m_policies)
        return;
    // Each pass brings a listing: only a change of which actions are shadow filters again
    // (the rates' windows repaint with the ticker).
    const std::vector<bool> before = shadowActions();
    m_policies = std::move(policies);
    m_shadowActions.clear(); // rebuilt for the new policies at the next look
    if (shadowActions() == before)
        return;
    using State = SubjectFilter::State;
    if (m_filter.state == State::Denied || m_filter.state == State::Shadow ||
        m_filter.state == State::WouldDeny)
        requestOrder();
    // Marks of the rows shown: one whole-range signal, the view repaints what it shows.
    if (!m_order.empty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_order.size()) - 1, ColumnCount - 1));
}

qint64 SubjectsModel::wouldDenyCount() const
{
    const std::vector<qint64>& denied = m_store.totals().deniedByAction;
    const std::vector<bool>& shadow = shadowActions();
    qint64 count = 0;
    for (size_t i = 0; i < denied.size() && i < shadow.size(); ++i)
        count += shadow[i] ? denied[i] : 0;
    return count;
}

void SubjectsModel::requestOrder(bool keepOrder)
{
    if (m_ordering) {
        m_orderAgain = true;
        return;
    }
    announceAppended(); // a kept order must hold them, a new one holds them anyway
    m_ordering = true;
    m_orderAgain = false;
    OrderRequest request{m_filter, m_sort,     std::exchange(m_retirePass, 0),      std::nullopt,
                         m_marks,  m_policies, QDateTime::currentMSecsSinceEpoch(), steadyNowMs()};
    m_requestClock = {request.steadyNowMs, request.nowMs};
    m_requestKeeps = keepOrder;
    if (keepOrder)
        request.keep = m_order; // one copy of 4 bytes a row, no per-row work
    else
        m_appendedSinceOrder = false;
    const quint64 generation = ++m_generation;
    const Context self(this); // on the GUI thread, where the result must land
    // Writing to the store while the worker still holds its snapshot would copy every row.
    m_snapshotOut = std::make_shared<std::atomic<bool>>(true);
    auto run = [self, generation, snapshot = m_store.snapshot(), request = std::move(request),
                out = m_snapshotOut, model = this]() mutable {
        RowOrder order;
        {
            const StoreSnapshot mine = std::move(snapshot);
            order = computeOrder(mine, request);
        } // released here, on the worker, before the GUI thread writes again
        out->store(false);
        self.post([model, generation, order = std::move(order)]() mutable {
            model->applyOrder(generation, std::move(order));
        });
    };
    QThreadPool::globalInstance()->start(std::function<void()>(std::move(run)));
}

void SubjectsModel::applyOrder(quint64 generation, RowOrder order)
{
    if (generation != m_generation)
        return;
    m_ordering = false;
    if (!m_requestKeeps)
        m_sortClock = m_requestClock;
    m_store.retire(order.retired);
    if (!order.retired.empty() || order.rows != m_order) {
        // One layout change, whatever moved, left or came back: persistent indexes (the
        // selection, the current row) follow their rows through the precomputed map.
        Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        const QModelIndexList before = persistentIndexList();
        QModelIndexList after;
        after.reserve(before.size());
        for (const QModelIndex& old : before) {
            const quint32 storeRow = m_order[size_t(old.row())];
            const qint32 row = order.viewRowOf[storeRow];
            after << (row < 0 ? QModelIndex() : index(row, old.column()));
        }
        m_order = std::move(order.rows);
        changePersistentIndexList(before, after);
        Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    }
    Q_EMIT orderApplied();
    if (m_orderAgain)
        requestOrder();
    else if (!m_pending.empty() || m_finishedPass != 0)
        m_slicer.start();
}

void SubjectsModel::clear()
{
    beginResetModel();
    m_store.clear();
    m_order.clear();
    m_unannounced.clear();
    m_changedUnannounced = false;
    m_announceDue.stop();
    m_pending.clear();
    ++m_generation; // a sort in flight is for rows that are gone
    m_ordering = false;
    m_orderAgain = false;
    m_finishedPass = 0;
    m_retirePass = 0;
    endResetModel();
}

void SubjectsModel::reserve(qint64 rows)
{
    if (m_ordering)
        return; // a snapshot is out: growing now would copy it
    m_store.reserve(rows);
    m_order.reserve(size_t(rows));
}

int SubjectsModel::viewRowOf(const QByteArray& user, const QByteArray& action) const
{
    const int storeRow = m_store.find(user, action);
    if (storeRow < 0)
        return -1;
    const auto it = std::find(m_order.begin(), m_order.end(), quint32(storeRow));
    return it == m_order.end() ? -1 : int(it - m_order.begin());
}

QByteArray SubjectsModel::userAt(int viewRow) const
{
    return m_store.userId(int(m_order[size_t(viewRow)]));
}

SubjectKey SubjectsModel::keyAt(int viewRow) const
{
    const int storeRow = int(m_order[size_t(viewRow)]);
    return {m_store.userId(storeRow), m_store.action(storeRow)};
}

qint64 SubjectsModel::resetDeadlineAt(int viewRow) const
{
    return m_store.row(int(m_order[size_t(viewRow)])).resetDeadline;
}

} // namespace tollgate::ui
