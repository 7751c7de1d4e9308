#pragma once

#include "core/client/NodeClients.h"
#include "core/cluster/SlotMap.h"

#include <map>

namespace tollgate {

/// What the dashboard shows of one server, from its INFO.
struct NodeStats
{
    QString address; // "host:port"
    bool primary = true;
    qint64 opsPerSec = 0;  // instantaneous_ops_per_sec
    qint64 usedMemory = 0; // used_memory, bytes
    qint64 connectedClients = 0;
    qint64 keys = 0; // db0 keys
    // Replication: master_repl_offset on a primary, slave_repl_offset on a replica (-1 unknown),
    // and a replica's master_last_io_seconds_ago; a replica's lag is the primary's offset minus
    // its own.
    qint64 replicationOffset = -1;
    qint64 lastIoSecondsAgo = -1;
    // From CLUSTER INFO, asked together with INFO; empty / 0 on a standalone server.
    QByteArray clusterState; // cluster_state as this node sees it: "ok" or "fail"
    int clusterSlotsOk = 0;  // cluster_slots_ok: slots served by a healthy primary
    QString error;           // why the node did not answer; empty when it did

    /// Adds `other`'s load (ops/s, memory, clients, keys) to this one's, for totals.
    void add(const NodeStats& other);
    /// Reads the fields above from the text of INFO (any sections; missing fields stay 0).
    static NodeStats fromInfo(const QByteArray& text);
    /// INFO as field -> value, for anything else a caller needs.
    static std::map<QByteArray, QByteArray> parseInfo(const QByteArray& text);
};

/// Every node of a cluster, and the primaries summed: INFO is node-local, so a dashboard that
/// asked one node would show a third of a three-shard cluster.
struct ClusterStats
{
    std::vector<NodeStats> nodes; // primaries first, then replicas, each sorted by address
    NodeStats primariesTotal;
    int unreachable = 0; // nodes that did not answer; their figures are missing from the total
    std::vector<NodeStats> unanswered; // those nodes: address, role and error only
};

/// INFO and CLUSTER INFO from every primary and replica of `map`, at the same time; done once
/// all answered.
void sampleClusterStats(NodeClients* clients, const SlotMap& map, Context context,
                        Callback<ClusterStats> done);
/// The same for any list of nodes, e.g. SlotMap::nodes() with the failed ones, to show them.
/// Each node's answer waits at most its client's command deadline.
void sampleNodeStats(NodeClients* clients, const std::vector<ClusterNode>& nodes, Context context,
                     Callback<ClusterStats> done);

} // namespace tollgate
