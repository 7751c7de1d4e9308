#pragma once

#include "tollgate/Subjects.h"
#include "ui/subjects/SubjectOrder.h"
#include "ui/subjects/SubjectStore.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QTimer>
#include <atomic>
#include <deque>
#include <memory>

namespace tollgate::ui {

/// The subjects table over a compact SubjectStore (well under 100 bytes a row at a million).
/// Batches are queued and applied in slices of a few ms; updated rows stay where they are
/// (one whole-range dataChanged per slice), new rows are appended. Sorting, filtering and
/// retiring the rows a finished pass no longer saw run on a worker over a snapshot and come
/// back as one layout change with a precomputed permutation. While they run, slices wait, so
/// the store never copies.
class SubjectsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        User,
        Action,
        Count,
        Remaining,
        Ttl,
        Since, // banned since (the ban's creation) or seen denied since (the console's reads)
        Rate,  // hits counted per minute (SubjectFigures rateOf)
        Ban,
        ColumnCount
    };
    enum Role
    {
        SortRole = Qt::UserRole + 1, // what the worker sorts by (sortKey); User: the id's bytes
        FractionRole,                // Count: count / limit as a double in [0, 1]
        TierRole,                    // Count: int(Tier), -1 when unknown
        UserIdRole,                  // raw user id (QByteArray)
        ActionIdRole,                // raw action id (QByteArray)
        BannedRole,
        NearLimitRole,
        ErrorRole,    // what is wrong on the row, or empty
        OverrideRole, // int(OverrideKind) of the override that applies, -1 when none
        ShadowRole,   // the action's policy is in shadow mode: its "deny" denies nobody
    };

    explicit SubjectsModel(QObject* parent = nullptr);
    ~SubjectsModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    /// Starts an off-thread sort; the view shows the old order until it is swapped in.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    /// Queues fresh subjects; they are applied a slice at a time. `pass`: the full pass that
    /// found them (beginPass), 0 for reads outside a pass.
    void enqueue(std::vector<Subject> batch, quint16 pass = 0);
    /// A full pass (first pass or sweep) starts; its batches carry the number returned.
    quint16 beginPass() { return m_store.beginPass(); }
    /// The pass ended complete: once its rows are in, rows it did not see leave (on the
    /// worker, one layout change), and rows it appended move to their sorted place.
    void finishPass(quint16 pass);
    /// Starts an off-thread filter.
    void setFilter(const SubjectFilter& filter);
    /// The override index to join rows against (OverrideWatcher): repaints the rows shown,
    /// and filters again when the filter is by override. No read per row, ever.
    void setOverrideMarks(SharedOverrideMarks marks);
    const SharedOverrideMarks& overrideMarks() const { return m_marks; }
    /// The policies to join rows against (each listing the loader reads): shadow marks and
    /// filters, and the windows of the rates. No read per row, ever.
    void setPolicies(SharedActionPolicies policies);
    const SharedActionPolicies& policies() const { return m_policies; }
    /// Of the denied rows (totals().denied), those of shadow policies: denied by nobody.
    qint64 wouldDenyCount() const;
    const SubjectFilter& filter() const { return m_filter; }
    void clear();
    /// Room for about `rows` rows (the keyspace size), allocated once up front.
    void reserve(qint64 rows);

    const SubjectStore& store() const { return m_store; }
    const SubjectStore::Totals& totals() const { return m_store.totals(); }
    /// The view row of (user, action), or -1 (a linear search: tests and one-off lookups).
    int viewRowOf(const QByteArray& user, const QByteArray& action) const;
    QByteArray userAt(int viewRow) const;
    SubjectKey keyAt(int viewRow) const;
    /// Steady-clock ms when the row's window empties (QDeadlineTimer), 0 when empty.
    qint64 resetDeadlineAt(int viewRow) const;
    /// True while nothing is queued or unannounced and no sort, filter or retiring is running
    /// or waiting.
    bool isIdle() const
    {
        return m_pending.empty() && m_unannounced.empty() && !m_changedUnannounced &&
               !m_ordering && m_finishedPass == 0;
    }

Q_SIGNALS:
    /// A slice was applied (rows added or updated).
    void sliceApplied();
    /// A sort or filter result was swapped in.
    void orderApplied();

private:
    struct PendingBatch
    {
        std::vector<Subject> rows;
        size_t next = 0;
        quint16 pass = 0;
    };

    void applySlice();
    void announceAppended();
    void requestOrder(bool keepOrder = false);
    void applyOrder(quint64 generation, RowOrder order);
    QVariant display(int storeRow, int column) const;
    QVariant foreground(const CompactRow& row, const OverrideMarks::Mark* mark, int column) const;
    const OverrideMarks::Mark* markOf(int storeRow) const;
    const Policy* policyOf(int storeRow) const;
    QString shadowText(const CompactRow& row) const;
    QVariant toolTip(int storeRow, int column) const;
    const std::vector<bool>& shadowActions() const;

    SubjectStore m_store;
    std::vector<quint32> m_order;       // view row -> store row (4 bytes a row)
    std::vector<quint32> m_unannounced; // appended to the store, not yet to the view
    bool m_changedUnannounced = false;  // rows updated in place since the last announcement
    QElapsedTimer m_announced;
    QTimer m_announceDue; // announces what waits once kAnnounceMs have passed
    std::shared_ptr<std::atomic<bool>> m_snapshotOut; // the worker still holds the store
    std::deque<PendingBatch> m_pending;
    QTimer m_slicer;
    SubjectFilter m_filter;
    SharedOverrideMarks m_marks = std::make_shared<const OverrideMarks>();
    SharedActionPolicies m_policies = std::make_shared<const ActionPolicies>();
    mutable std::vector<bool> m_shadowActions; // by action index, rebuilt as actions come
    // The clocks of the last sort (SortRole's rates) and of the one in flight.
    std::pair<qint64, qint64> m_sortClock{0, 0};
    std::pair<qint64, qint64> m_requestClock{0, 0};
    bool m_requestKeeps = false;
    SortSpec m_sort;
    bool m_ordering = false;
    bool m_orderAgain = false;
    bool m_appendedSinceOrder = false;
    quint16 m_finishedPass = 0; // waits for the queue to drain, then retires
    quint16 m_retirePass = 0;   // taken by the next order request
    quint64 m_generation = 0;
};

} // namespace tollgate::ui
