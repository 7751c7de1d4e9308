#pragma once

#include "ui/subjects/SubjectRow.h"

#include <QAbstractTableModel>
#include <QHash>
#include <vector>

namespace tollgate::ui {

/// The subjects table: one row per (user, action). Fed in batches by SubjectsRefresher:
/// new rows in one beginInsertRows, gone rows in contiguous removals, one whole-range
/// dataChanged per refresh. The TTL column is computed from a stored deadline when painted, so
/// the page counts down by repainting the view: no model signal, no Redis round trip.
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
        SortRole = Qt::UserRole + 1, // numbers for numeric columns, text otherwise
        FractionRole,                // Count: count / limit as a double in [0, 1]
        TierRole,                    // Count: int(Tier), -1 when unknown
        UserIdRole,                  // raw user id (QByteArray)
        ActionIdRole,                // raw action id (QByteArray)
        BannedRole,
        NearLimitRole,
    };

    struct Summary
    {
        int subjects = 0;
        int banned = 0;
        int nearLimit = 0;
    };

    explicit SubjectsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    /// Fresher data for some subjects (the visible ones): updates those rows in place,
    /// appends unknown ones. Never removes.
    void update(const std::vector<SubjectRow>& rows);
    /// A complete pass: rows not in `rows` go, the others are updated or appended.
    void replace(const std::vector<SubjectRow>& rows);

    const SubjectRow& row(int index) const { return m_rows[size_t(index)]; }
    int rowOf(const SubjectKey& key) const { return m_index.value(key, -1); }
    Summary summary() const;

private:
    void merge(const std::vector<SubjectRow>& rows);
    void reindex();
    QVariant display(const SubjectRow& row, int column) const;
    QVariant sortValue(const SubjectRow& row, int column) const;

    std::vector<SubjectRow> m_rows;
    QHash<SubjectKey, int> m_index;
};

} // namespace tollgate::ui
