#pragma once

#include "core/scripts/Slowlog.h"

#include <QAbstractTableModel>
#include <vector>

namespace tollgate::ui {

/// The slow log as a table: newest first, at most the few hundred entries the server keeps.
class SlowlogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        TimeColumn,
        DurationColumn,
        ScriptColumn,
        ArgumentsColumn,
        ClientColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    /// Replaces the rows in one reset (the list is small and arrives whole).
    void setEntries(std::vector<SlowlogEntry> entries);
    const std::vector<SlowlogEntry>& entries() const { return m_entries; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<SlowlogEntry> m_entries;
};

} // namespace tollgate::ui
