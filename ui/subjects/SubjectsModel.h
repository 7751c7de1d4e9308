#pragma once

#include "core/limits/Subject.h"
#include "ui/subjects/SubjectOrder.h"
#include "ui/subjects/SubjectStore.h"

#include <QAbstractTableModel>
#include <QTimer>
#include <deque>

namespace tollgate::ui {

/// The subjects table over a compact SubjectStore (well under 100 bytes a row at a million).
/// Batches are queued and applied in slices of a few ms; updated rows stay where they are
/// (one whole-range dataChanged per slice), new rows are appended. Sorting and filtering run
/// on a worker over a snapshot and come back as one layout change (or one reset when the
/// filter changes which rows show). While they run, slices wait, so the store never copies.
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
        Ban,
        ColumnCount
    };
    enum Role
    {
        SortRole = Qt::UserRole + 1, // the sort key: numbers for numeric columns, text otherwise
        FractionRole,                // Count: count / limit as a double in [0, 1]
        TierRole,                    // Count: int(Tier), -1 when unknown
        UserIdRole,                  // raw user id (QByteArray)
        ActionIdRole,                // raw action id (QByteArray)
        BannedRole,
        NearLimitRole,
        ErrorRole, // what is wrong on the row, or empty
    };

    explicit SubjectsModel(QObject* parent = nullptr);
    ~SubjectsModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    /// Starts an off-thread sort; the view shows the old order until it is swapped in.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    /// Queues fresh subjects; they are applied a slice at a time.
    void enqueue(std::vector<Subject> batch);
    /// Starts an off-thread filter.
    void setFilter(const SubjectFilter& filter);
    const SubjectFilter& filter() const { return m_filter; }
    /// Sorts again with the current column (rows appended since the last sort move in place).
    void resort();
    bool hasUnsortedRows() const { return m_appendedSinceOrder; }
    void clear();
    /// Room for about `rows` rows (the keyspace size), allocated once up front.
    void reserve(qint64 rows);

    const SubjectStore& store() const { return m_store; }
    const SubjectStore::Totals& totals() const { return m_store.totals(); }
    /// The view row of (user, action), or -1 (a linear search: tests and one-off lookups).
    int viewRowOf(const QByteArray& user, const QByteArray& action) const;
    QByteArray userAt(int viewRow) const;
    SubjectKey keyAt(int viewRow) const;
    /// True while nothing is queued and no sort or filter is running.
    bool isIdle() const { return m_pending.empty() && !m_ordering; }

Q_SIGNALS:
    /// A slice was applied (rows added or updated).
    void sliceApplied();
    /// A sort or filter result was swapped in.
    void orderApplied();

private:
    void applySlice();
    void requestOrder();
    void applyOrder(quint64 generation, RowOrder order);
    QVariant display(int storeRow, int column) const;
    QVariant sortValue(int storeRow, int column) const;

    SubjectStore m_store;
    std::vector<quint32> m_order; // view row -> store row (4 bytes a row)
    std::deque<Subject> m_pending;
    QTimer m_slicer;
    SubjectFilter m_filter;
    SortSpec m_sort;
    bool m_ordering = false;
    bool m_orderAgain = false;
    bool m_appendedSinceOrder = false;
    bool m_resortWhenApplied = false;
    quint64 m_generation = 0;
};

} // namespace tollgate::ui
