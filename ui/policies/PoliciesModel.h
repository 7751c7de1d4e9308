#pragma once

#include "tollgate/Policy.h"

#include <QAbstractTableModel>
#include <vector>

namespace tollgate::ui {

/// The policies of every action, one row each, as PolicyStore::list delivers them.
class PoliciesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        ActionColumn,
        AlgorithmColumn,
        LimitsColumn,
        BanColumn,
        WarnColumn,
        CostColumn,
        CountDeniedColumn,
        RevisionColumn,
        UpdatedByColumn,
        ColumnCount
    };

    explicit PoliciesModel(QObject* parent = nullptr);

    /// Replaces the rows. When the set of actions is unchanged only one dataChanged is emitted,
    /// so the view keeps its selection across live refreshes.
    void setPolicies(std::vector<Policy> policies);

    const Policy* policyAt(int row) const;
    /// Row of `action`, or -1.
    int rowOf(const QByteArray& action) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<Policy> m_policies;
};

} // namespace tollgate::ui
