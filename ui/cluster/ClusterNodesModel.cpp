#include "ui/cluster/ClusterNodesModel.h"

#include "ui/cluster/PoolRows.h"
#include "ui/cluster/SentinelRows.h"
#include "ui/common/Palette.h"

#include <QHash>
#include <QLocale>
#include <algorithm>

namespace tollgate::ui {

namespace {

ClusterNodeRow rowFor(const ClusterNode& node, const ClusterSnapshot& snapshot,
                      const QHash<QString, const NodeStats*>& figures, ClusterHealth health)
{
    ClusterNodeRow row;
    row.address = node.address();
    row.id = node.id;
    row.role = node.primary ? QStringLiteral("primary") : QStringLiteral("replica");
    if (const ClusterNode* primary = snapshot.map.primaryOf(node))
        row.primary = primary->address();
    row.slotRanges = snapshot.map.slotRanges(row.address);
    for (const auto& [first, last] : row.slotRanges)
        row.slotCount += last - first + 1;
    if (!takeFigures(row, figures))
        return row;
    if (node.failed) {
        row.link = NodeLink::Failing;
        row.linkDetail = QObject::tr("the cluster marks it failed");
    } else if (row.stats.clusterState == "fail" && health == ClusterHealth::Ok) {
        row.link = NodeLink::Failing;
        row.linkDetail = QObject::tr("it sees cluster_state:fail while the cluster is ok");
    }
    return row;
}

} // namespace

bool takeFigures(ClusterNodeRow& row, const QHash<QString, const NodeStats*>& figures)
{
    const NodeStats* stats = figures.value(row.address);
    if (stats)
        row.stats = *stats;
    if (stats && stats->error.isEmpty())
        return true;
    row.link = NodeLink::Unreachable;
    row.linkDetail = stats ? stats->error : QObject::tr("not sampled");
    return false;
}

ClusterHealth clusterHealth(const ClusterStats& stats)
{
    int ok = 0;
    int fail = 0;
    for (const NodeStats& node : stats.nodes) {
        if (!node.primary || node.clusterState.isEmpty())
            continue;
        ++(node.clusterState == "ok" ? ok : fail);
    }
    if (ok + fail == 0)
        return ClusterHealth::Unknown;
    return ok > fail ? ClusterHealth::Ok : ClusterHealth::Fail;
}

std::vector<ClusterNodeRow> ClusterNodeRow::fromSnapshot(const ClusterSnapshot& snapshot)
{
    QHash<QString, const NodeStats*> figures;
    for (const NodeStats& node : snapshot.stats.nodes)
        figures.insert(node.address, &node);
    for (const NodeStats& node : snapshot.stats.unanswered)
        figures.insert(node.address, &node);
    if (snapshot.sentinel)
        return sentinelRows(snapshot, figures);
    if (snapshot.pool)
        return poolRows(snapshot, figures);
    std::vector<ClusterNodeRow> rows;
    if (snapshot.standalone) {
        for (const NodeStats& node : snapshot.stats.nodes) {
            ClusterNodeRow row;
            row.address = node.address;
            row.role = QStringLiteral("standalone");
            row.stats = node;
            rows.push_back(row);
        }
        return rows;
    }
    const ClusterHealth health = clusterHealth(snapshot.stats);
    std::vector<ClusterNode> nodes = snapshot.map.nodes();
    std::sort(nodes.begin(), nodes.end(), [](const ClusterNode& a, const ClusterNode& b) {
        return std::make_pair(a.host, a.port) < std::make_pair(b.host, b.port);
    });
    std::vector<bool> placed(nodes.size(), false);
    for (size_t p = 0; p < nodes.size(); ++p) {
        if (!nodes[p].primary)
            continue;
        rows.push_back(rowFor(nodes[p], snapshot, figures, health));
        placed[p] = true;
        for (size_t r = 0; r < nodes.size(); ++r) {
            const ClusterNode* primary = snapshot.map.primaryOf(nodes[r]);
            if (!placed[r] && primary && primary->sameAddress(nodes[p])) {
                rows.push_back(rowFor(nodes[r], snapshot, figures, health));
                placed[r] = true;
            }
        }
    }
    for (size_t i = 0; i < nodes.size(); ++i) // replicas of a primary the map does not know
        if (!placed[i])
            rows.push_back(rowFor(nodes[i], snapshot, figures, health));
    return rows;
}

QString slotRangesText(const std::vector<std::pair<int, int>>& ranges, int most)
{
    QStringList parts;
    for (const auto& [first, last] : ranges) {
        if (parts.size() == most) {
            parts << QObject::tr("\u2026 (+%1 more)").arg(ranges.size() - size_t(most));
            break;
        }
        parts << (first == last ? QString::number(first)
                                : QStringLiteral("%1-%2").arg(first).arg(last));
    }
    return parts.join(QStringLiteral(", "));
}

void ClusterNodesModel::setRows(std::vector<ClusterNodeRow> rows)
{
    const bool sameNodes = rows.size() == m_rows.size() &&
                           std::equal(rows.begin(), rows.end(), m_rows.begin(),
                                      [](const ClusterNodeRow& a, const ClusterNodeRow& b) {
                                          return a.address == b.address;
                                      });
    if (!sameNodes)
        beginResetModel();
    m_rows = std::move(rows);
    if (!sameNodes)
        endResetModel();
    else if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int ClusterNodesModel::rowOf(const QString& address) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].address == address)
            return int(i);
    return -1;
}

QString ClusterNodesModel::linkName(NodeLink link)
{
    switch (link) {
    case NodeLink::Connected:
        return tr("connected");
    case NodeLink::Failing:
        return tr("failing");
    case NodeLink::Unreachable:
        return tr("unreachable");
    }
    return {};
}

int ClusterNodesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ClusterNodesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClusterNodesModel::display(const ClusterNodeRow& row, int column) const
{
    const QLocale locale;
    // Sentinels and a Twemproxy proxy hold no data: their figures are the servers'.
    const bool figures = row.link != NodeLink::Unreachable &&
                         row.role != QLatin1String("sentinel") &&
                         row.role != QLatin1String("proxy");
    const auto number = [&](qint64 value) {
        return figures ? locale.toString(value) : QStringLiteral("\u2014");
    };
    switch (Column(column)) {
    case AddressColumn:
        return row.address;
    case IdColumn:
        return QString::fromLatin1(row.id.left(8));
    case RoleColumn:
        return row.role;
    case PrimaryColumn:
        return row.primary;
    case SlotsColumn:
        return slotRangesText(row.slotRanges);
    case SlotCountColumn:
        return row.role == QLatin1String("standalone") ? QStringLiteral("\u2014")
                                                       : locale.toString(row.slotCount);
    case KeysColumn:
        return number(row.stats.keys);
    case OpsColumn:
        return number(row.stats.opsPerSec);
    case MemoryColumn:
        return figures ? locale.formattedDataSize(row.stats.usedMemory) : QStringLiteral("\u2014");
    case ClientsColumn:
        return number(row.stats.connectedClients);
    case LagColumn:
        return lagText(row);
    case LinkColumn:
        return linkName(row.link);
    case ProxyColumn:
        return row.proxyView;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant ClusterNodesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const ClusterNodeRow& row = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return display(row, index.column());
    case Qt::ToolTipRole:
        if (index.column() == IdColumn)
            return QString::fromLatin1(row.id);
        if (index.column() == SlotsColumn)
            return slotRangesText(row.slotRanges, int(row.slotRanges.size()));
        if (index.column() == LinkColumn)
            return row.linkDetail;
        if (index.column() == ProxyColumn)
            return row.proxyView;
        return {};
    case Qt::ForegroundRole:
        if (index.column() == LinkColumn)
            return toneColor(row.link == NodeLink::Connected ? Tone::Ok
                             : row.link == NodeLink::Failing ? Tone::Warn
                                                             : Tone::Denied);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() >= SlotCountColumn && index.column() <= ClientsColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QVariant ClusterNodesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case AddressColumn:
        return tr("Node");
    case IdColumn:
        return tr("Id");
    case RoleColumn:
        return tr("Role");
    case PrimaryColumn:
        return tr("Primary");
    case SlotsColumn:
        return tr("Slot ranges");
    case SlotCountColumn:
        return tr("Slots");
    case KeysColumn:
        return tr("Keys");
    case OpsColumn:
        return tr("Ops/s");
    case MemoryColumn:
        return tr("Memory");
    case ClientsColumn:
        return tr("Clients");
    case LagColumn:
        return tr("Lag");
    case LinkColumn:
        return tr("Link");
    case ProxyColumn:
        return tr("The proxy says");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
