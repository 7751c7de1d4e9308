#include "ui/keys/NoTtlModel.h"

#include "core/policies/Duration.h"
#include "ui/keys/KeysModel.h"
#include "ui/user/WrongTypeKeys.h"

namespace {
const QString kWrongType = QStringLiteral("wrong_type");
const QString kDeleted = QStringLiteral("deleted"); // a key of the wrong type, deleted here
} // namespace

namespace tollgate::ui {

NoTtlModel::NoTtlModel(QObject* parent) : QAbstractTableModel(parent) {}

void NoTtlModel::clear()
{
    beginResetModel();
    m_items.clear();
    m_rowOf.clear();
    m_wrongType = 0;
    endResetModel();
}

void NoTtlModel::mergeItems(std::vector<RepairItem> items)
{
    int first = rowCount();
    int last = -1;
    std::vector<RepairItem> fresh;
    for (RepairItem& item : items) {
        const auto it = m_rowOf.constFind(item.key);
        if (it == m_rowOf.constEnd()) {
            m_rowOf.insert(item.key, rowCount() + int(fresh.size()));
            m_wrongType += item.status == kWrongType ? 1 : 0;
            fresh.push_back(std::move(item));
        } else if (const int r = *it; r < rowCount()) { // else: twice in this batch
            RepairItem& shown = m_items[size_t(r)];
            m_wrongType +=
                (item.status == kWrongType ? 1 : 0) - (shown.status == kWrongType ? 1 : 0);
            shown.status = item.status;
            shown.ttlMs = item.ttlMs;
            shown.type = item.type;
            shown.expectedType = item.expectedType;
            first = std::min(first, r);
            last = std::max(last, r);
        }
    }
    if (last >= first)
        Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
    if (fresh.empty())
        return;
    beginInsertRows({}, rowCount(), rowCount() + int(fresh.size()) - 1);
    std::move(fresh.begin(), fresh.end(), std::back_inserter(m_items));
    endInsertRows();
}

QList<QByteArray> NoTtlModel::unfixedKeys() const
{
    QList<QByteArray> keys;
    for (const RepairItem& item : m_items)
        if (item.status != QStringLiteral("fixed") && item.status != kWrongType &&
            item.status != kDeleted)
            keys << item.key;
    return keys;
}

bool NoTtlModel::isWrongType(int row) const
{
    return row >= 0 && row < rowCount() && m_items[size_t(row)].status == kWrongType;
}

void NoTtlModel::markDeleted(const QList<QByteArray>& keys)
{
    for (const QByteArray& key : keys) {
        const int row = m_rowOf.value(key, -1);
        if (!isWrongType(row))
            continue;
        m_items[size_t(row)].status = kDeleted;
        --m_wrongType;
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

int NoTtlModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

int NoTtlModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NoTtlModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() ||
        (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    const RepairItem& item = m_items[size_t(index.row())];
    // A key of the wrong type: what it is and breaks, whole in the tooltip too.
    if (item.status == kWrongType || item.status == kDeleted) {
        const QString explained =
            item.status == kDeleted
                ? tr("deleted: the scripts can write it afresh")
                : wrongTypeExplanation(item.key, item.parsed, item.type, item.expectedType);
        if (role == Qt::ToolTipRole)
            return explained;
        if (index.column() == StatusColumn)
            return item.status == kDeleted ? tr("deleted") : tr("wrong type");
        if (index.column() == TtlColumn)
            return explained;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case KeyColumn:
        return KeysModel::shownKey(item.key);
    case UserColumn:
        return KeysModel::shownKey(item.parsed.user);
    case ActionColumn:
        return KeysModel::displayBytes(item.parsed.action);
    case StatusColumn:
        return item.status == QStringLiteral("fixed") ? tr("fixed") : tr("no TTL");
    case TtlColumn:
        if (item.status == QStringLiteral("fixed"))
            return item.ttlMs > 0 ? tr("set to %1").arg(formatDuration(item.ttlMs))
                                  : tr("deleted (ban ended)");
        return item.ttlMs > 0 ? tr("needs %1").arg(formatDuration(item.ttlMs))
                              : tr("ended: delete");
    case ColumnCount:
        break;
    }
    return {};
}

QVariant NoTtlModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case KeyColumn:
        return tr("Key");
    case UserColumn:
        return tr("User");
    case ActionColumn:
        return tr("Action");
    case StatusColumn:
        return tr("Status");
    case TtlColumn:
        return tr("Repair");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
