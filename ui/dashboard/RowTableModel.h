#pragma once

#include <QAbstractTableModel>
#include <vector>

namespace tollgate::ui {

/// A table model over a vector of rows that is replaced as a whole once per sample, in as few
/// signals as possible: the common rows change with one dataChanged, the tail is inserted or
/// removed in one go (a full reset would lose the selection and scroll position every second).
template <typename Row>
class RowTableModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override
    {
        return parent.isValid() ? 0 : int(m_rows.size());
    }

    const std::vector<Row>& rows() const { return m_rows; }

protected:
    void replaceRows(std::vector<Row> next)
    {
        const int before = int(m_rows.size());
        const int after = int(next.size());
        if (after < before) {
            beginRemoveRows({}, after, before - 1);
            m_rows.resize(size_t(after));
            endRemoveRows();
        }
        const int common = std::min(before, after);
        for (int row = 0; row < common; ++row)
            m_rows[size_t(row)] = std::move(next[size_t(row)]);
        if (common > 0)
            Q_EMIT dataChanged(index(0, 0), index(common - 1, columnCount() - 1));
        if (after > before) {
            beginInsertRows({}, before, after - 1);
            for (int row = before; row < after; ++row)
                m_rows.push_back(std::move(next[size_t(row)]));
            endInsertRows();
        }
    }

    std::vector<Row> m_rows;
};

} // namespace tollgate::ui
