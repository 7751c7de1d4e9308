#include "ui/keys/NoTtlModel.h"

#include "core/policies/Duration.h"
#include "ui/keys/KeysModel.h"

namespace tollgate::ui {

NoTtlModel::NoTtlModel(QObject* parent) : QAbstractTableModel(parent) {}

void NoTtlModel::clear()
{
    beginResetModel();
    m_items.clear();
    m_rowOf.clear();
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
            fresh.push_back(std::move(item));
        } else if (const int r = *it; r < rowCount()) { // else: twice in this batch
            m_items[size_t(r)].status = item.status;
            m_items[size_t(r)].ttlMs = item.ttlMs;
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
        if (item.status != QStringLiteral("fixed"))
            keys << item.key;
    return keys;
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
    if (!index.isValid() || index.row() >= rowCount() || role != Qt::DisplayRole)
        return {};
    const RepairItem& item = m_items[size_t(index.row())];
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
        return tr("TTL");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
