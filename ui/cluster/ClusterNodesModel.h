#pragma once

#include "ui/cluster/ClusterMonitor.h"

#include <QAbstractTableModel>
#include <vector>

namespace tollgate::ui {

/// The cluster's state as most of the primaries that answered see it (CLUSTER INFO
/// cluster_state); a tie counts as fail, no answer as unknown.
enum class ClusterHealth
{
    Unknown,
    Ok,
    Fail
};
ClusterHealth clusterHealth(const ClusterStats& stats);

/// How the console reaches a node, worst first wins: unreachable (it did not answer the
/// page's INFO within the deadline), failing (it answers, but the cluster marks it failed, or
/// it sees cluster_state:fail while the cluster is ok: cut off from the others), connected.
enum class NodeLink
{
    Connected,
    Failing,
    Unreachable
};

/// One row of the Topology page: what the topology says of a node and what its INFO said.
struct ClusterNodeRow
{
    QString address;
    QByteArray id;
    QString role;    // "primary", "replica" or "standalone"
    QString primary; // a replica's primary, "host:port"
    std::vector<std::pair<int, int>> slotRanges;
    int slotCount = 0;
    NodeStats stats; // zero figures when it did not answer
    NodeLink link = NodeLink::Connected;
    QString linkDetail;     // why it is not connected
    qint64 lagBytes = -1;   // a replica: its primary's replication offset minus its own
    qint64 lagSeconds = -1; // a replica: since it last heard from its primary
    QString proxyView;      // a Twemproxy pool: what nutcracker's stats say of it

    /// Rows for a snapshot: each primary (by address) followed by its replicas, then any node
    /// the topology names without a shard (a failed primary that lost its slots). On a
    /// Sentinel deployment: the primary, its replicas with their lag, then the sentinels. On a
    /// Twemproxy pool: the proxy, then each backend.
    static std::vector<ClusterNodeRow> fromSnapshot(const ClusterSnapshot& snapshot);
};

/// Fills row.stats with the row's INFO from `figures` (by address); a node that did not answer,
/// or was not sampled, becomes unreachable with the reason. Returns whether it answered.
bool takeFigures(ClusterNodeRow& row, const QHash<QString, const NodeStats*>& figures);

/// The nodes of the Topology page. Rows are replaced whole on every sample (a cluster has a
/// handful of nodes): one dataChanged when the same nodes come back, a reset otherwise, so a
/// selection survives the refresh.
class ClusterNodesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        AddressColumn,
        IdColumn,
        RoleColumn,
        PrimaryColumn,
        SlotsColumn,
        SlotCountColumn,
        KeysColumn,
        OpsColumn,
        MemoryColumn,
        ClientsColumn,
        LagColumn,
        LinkColumn,
        ProxyColumn, // a Twemproxy pool only
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setRows(std::vector<ClusterNodeRow> rows);
    const std::vector<ClusterNodeRow>& rows() const { return m_rows; }
    /// The row of the node at `address`, or -1.
    int rowOf(const QString& address) const;
    static QString linkName(NodeLink link);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QVariant display(const ClusterNodeRow& row, int column) const;

    std::vector<ClusterNodeRow> m_rows;
};

/// "0-5460" or "0-99, 200-5460"; after `most` ranges, "… (+N more)".
QString slotRangesText(const std::vector<std::pair<int, int>>& ranges, int most = 3);

} // namespace tollgate::ui
