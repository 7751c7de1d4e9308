#include "ui/keys/NoTtlModel.h"

#include <QHash>

#include "core/limits/Duration.h"
#include "ui/keys/KeysModel.h"

namespace tollgate::ui {

NoTtlModel::NoTtlModel(QObject* parent) : QAbstractTableModel(parent) {}

void NoTtlModel::setItems(std::vector<RepairItem> items)
{
    beginResetModel();
    m_items = std::move(items);
    endResetModel();
}

void NoTtlModel::updateItems(const std::vector<RepairItem>& items)
{
    // One pass over the rows: a repair of every key must not cost rows x updates.
    QHash<QByteArray, const RepairItem*> updates;
    updates.reserve(qsizetype(items.size()));
    for (const RepairItem& update : items)
        updates.insert(update.key, &update);
    int first = rowCount();
    int last = -1;
    for (size_t r = 0; r < m_items.size() && !updates.isEmpty(); ++r) {
        const RepairItem* update = updates.value(m_items[r].key);
        if (!update)
            continue;
        m_items[r].status = update->status;
        m_items[r].ttlMs = update->ttlMs;
        first = std::min(first, int(r));
        last = std::max(last, int(r));
    }
    if (last >= first)
        Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
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
        return KeysModel::displayBytes(item.key);
    case UserColumn:
        return KeysModel::displayBytes(item.parsed.user);
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
