#pragma once

#include "tollgate/AuditLog.h"

#include <QAbstractTableModel>
#include <QSet>
#include <vector>

namespace tollgate::ui {

/// The audit stream, newest first. Live updates arrive as batches of newer entries that are
/// prepended in one insert; entries already shown (same stream id) are skipped.
class AuditModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Time, Event, User, Action, Actor, Reason, Until, ColumnCount };
    /// Qt::UserRole on the Event column: the raw event name, for exact filtering.
    static constexpr int EventNameRole = Qt::UserRole;

    explicit AuditModel(QObject* parent = nullptr);

    /// Replaces everything with `newestFirst`.
    void setEntries(std::vector<AuditEntry> newestFirst);
    /// Prepends entries newer than those shown (AuditLog::newer order: oldest first).
    /// Returns how many rows were added.
    int prependNewer(const std::vector<AuditEntry>& oldestFirst);

    /// The stream id of the newest row; empty when there are no rows.
    QByteArray newestId() const;
    const AuditEntry& entry(int row) const { return m_rows[size_t(row)]; }
    /// The event names present, sorted.
    QStringList eventNames() const;

    /// Rows kept at most; the oldest fall off the end.
    void setMaxRows(int rows) { m_maxRows = rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// An id or free text made safe for one cell: newlines and other control characters and
    /// invalid UTF-8 are shown as escapes.
    static QString safeText(const QByteArray& bytes);

private:
    std::vector<AuditEntry> m_rows;
    QSet<QByteArray> m_ids;
    int m_maxRows = 5000;
};

} // namespace tollgate::ui
