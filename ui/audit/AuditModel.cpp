#include "ui/audit/AuditModel.h"

#include "ui/common/AuditText.h"
#include "ui/common/DisplayText.h"
#include "ui/common/RowRoles.h"

#include <QDateTime>
#include <QStringDecoder>
#include <algorithm>

namespace tollgate::ui {

AuditModel::AuditModel(QObject* parent) : QAbstractTableModel(parent) {}

QString AuditModel::safeText(const QByteArray& bytes)
{
    return displayId(bytes);
}

void AuditModel::setEntries(std::vector<AuditEntry> newestFirst)
{
    beginResetModel();
    m_rows = std::move(newestFirst);
    if (int(m_rows.size()) > m_maxRows)
        m_rows.resize(size_t(m_maxRows));
    m_ids.clear();
    for (const AuditEntry& entry : m_rows)
        m_ids.insert(entry.id);
    endResetModel();
}

int AuditModel::prependNewer(const std::vector<AuditEntry>& oldestFirst)
{
    std::vector<AuditEntry> fresh;
    for (auto it = oldestFirst.rbegin(); it != oldestFirst.rend(); ++it)
        if (!m_ids.contains(it->id))
            fresh.push_back(*it);
    if (fresh.empty())
        return 0;
    beginInsertRows({}, 0, int(fresh.size()) - 1);
    for (const AuditEntry& entry : fresh)
        m_ids.insert(entry.id);
    m_rows.insert(m_rows.begin(), std::make_move_iterator(fresh.begin()),
                  std::make_move_iterator(fresh.end()));
    endInsertRows();
    if (int(m_rows.size()) > m_maxRows) {
        beginRemoveRows({}, m_maxRows, int(m_rows.size()) - 1);
        for (size_t row = size_t(m_maxRows); row < m_rows.size(); ++row)
            m_ids.remove(m_rows[row].id);
        m_rows.resize(size_t(m_maxRows));
        endRemoveRows();
    }
    return int(fresh.size());
}

QByteArray AuditModel::newestId() const
{
    return m_rows.empty() ? QByteArray() : m_rows.front().id;
}

QStringList AuditModel::eventNames() const
{
    QSet<QString> names;
    for (const AuditEntry& entry : m_rows)
        names.insert(entry.event);
    QStringList sorted(names.begin(), names.end());
    sorted.sort();
    return sorted;
}

int AuditModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AuditModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const AuditEntry& entry = m_rows[size_t(index.row())];
    if (role == RowUserRole)
        return entry.user; // empty for a policy's entries: no user to open
    if (role == EventNameRole && index.column() == Event)
        return entry.event;
    if (role == Qt::ToolTipRole && index.column() == Reason)
        return auditWhyToolTip(entry);
    if (role == Qt::ToolTipRole && index.column() == Event)
        return auditEventToolTip(entry);
    if (role == Qt::ToolTipRole && index.column() == Time)
        return QString::fromLatin1(entry.id);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case Time:
        return formatTime(entry.timeMs);
    case Event:
        return auditEventText(entry); // worded like the user detail's history
    case User:
        return safeText(entry.user);
    case Action:
        return auditActionText(entry);
    case Actor:
        return safeText(entry.actor.toUtf8());
    case Reason:
        return auditWhyText(entry); // worded like the user detail's history
    case Until:
        return auditUntilText(entry);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Time:
        return tr("Time");
    case Event:
        return tr("Event");
    case User:
        return tr("User");
    case Action:
        return tr("Action");
    case Actor:
        return tr("Actor");
    case Reason:
        return tr("Reason");
    case Until:
        return tr("Until");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
