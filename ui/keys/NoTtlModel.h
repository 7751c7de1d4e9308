#pragma once

#include "tollgate/Repair.h"

#include <QAbstractTableModel>
#include <QHash>
#include <vector>

namespace tollgate::ui {

/// Keys of ours that have no TTL but need one, as repair.lua reported them, and those of the
/// wrong type it skipped (core Repair asks their TYPE), explained: they need deleting.
class NoTtlModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        KeyColumn,
        UserColumn,
        ActionColumn,
        StatusColumn,
        TtlColumn, // what the repair does (or did): the TTL, or why a key must be deleted
        ColumnCount
    };

    explicit NoTtlModel(QObject* parent = nullptr);

    void clear();
    /// Updates the rows of keys already listed (status, TTL after a fix) and appends the
    /// others: one dataChanged and one insertion per call, work in the batch's size only, so
    /// a scan can stream any number of keys in.
    void mergeItems(std::vector<RepairItem> items);
    const RepairItem& item(int row) const { return m_items[size_t(row)]; }
    /// Keys still waiting for a fix.
    QList<QByteArray> unfixedKeys() const;
    /// The row is a key of the wrong type (not deleted yet).
    bool isWrongType(int row) const;
    /// Rows of the wrong type, not deleted yet.
    int wrongTypeCount() const { return m_wrongType; }
    /// Rows of the wrong type whose keys are gone now.
    void markDeleted(const QList<QByteArray>& keys);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<RepairItem> m_items;
    QHash<QByteArray, int> m_rowOf;
    int m_wrongType = 0;
};

} // namespace tollgate::ui
