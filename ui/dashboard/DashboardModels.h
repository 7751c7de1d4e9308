#pragma once

#include "ui/dashboard/DashboardData.h"
#include "ui/dashboard/RowTableModel.h"

namespace tollgate::ui {

/// One row per action with a policy: the latest second's rates and the active bans. The
/// dashboard's charts draw their series from the same rows.
class ActionStatsModel : public RowTableModel<ActionStats>
{
    Q_OBJECT
public:
    enum Column
    {
        Action,
        HitsPerSec,
        DenialsPerSec,
        WouldDenyPerSec, // shadow policies: hits enforcing would have denied
        WarnsPerSec,
        ActiveBans,
        ColumnCount
    };

    using RowTableModel::RowTableModel;

    void setActions(std::vector<ActionStats> actions);
    /// The row of an action, or -1.
    int rowOf(const QByteArray& action) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
};

/// Subjects close to or over their limit, the fastest first (NearLimitSweep).
class NearLimitModel : public RowTableModel<NearLimitEntry>
{
    Q_OBJECT
public:
    enum Column { User, Action, Tier, Count, Remaining, Since, Rate, ColumnCount };
    /// What a column sorts by: numbers as numbers, the tier by its severity.
    static constexpr int SortRole = Qt::UserRole;

    using RowTableModel::RowTableModel;

    void setEntries(std::vector<NearLimitEntry> entries);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    static QVariant sortKey(const NearLimitEntry& row, int column);
};

} // namespace tollgate::ui
