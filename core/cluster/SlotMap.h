#pragma once

#include "core/cluster/KeySlot.h"
#include "tollgate/Reply.h"
#include "tollgate/Result.h"

#include <QString>
#include <array>
#include <vector>

namespace tollgate {

/// A node of a cluster as clients must reach it.
struct ClusterNode
{
    QByteArray id; // empty when the reply did not say (CLUSTER SLOTS of old servers)
    QString host;
    quint16 port = 0;
    bool primary = true;
    bool failed = false; // CLUSTER SHARDS health "fail": the cluster has given up on it

    QString address() const { return host + QLatin1Char(':') + QString::number(port); }
    bool sameAddress(const ClusterNode& o) const { return host == o.host && port == o.port; }
};

/// Which primary (and replicas) serve each of the 16384 slots, from CLUSTER SHARDS (Redis 7)
/// or CLUSTER SLOTS. Nodes that announce no usable endpoint ("", "?") are reached at the host
/// the client used for the seed, as redis-cli does; a node announcing a hostname keeps it.
class SlotMap
{
public:
    SlotMap() { m_owner.fill(-1); }

    /// With `tls`, nodes are reached on their "tls-port" when they announce one.
    static Result<SlotMap> fromShards(const Reply& reply, const QString& seedHost,
                                      bool tls = false);
    static Result<SlotMap> fromSlots(const Reply& reply, const QString& seedHost);

    /// The primary serving `slot`, or null while no node owns it (a cluster being set up).
    const ClusterNode* primaryFor(int slot) const;
    const ClusterNode* primaryForKey(const QByteArray& key) const
    {
        return primaryFor(keySlot(key));
    }
    /// Every primary that owns at least one slot, each once.
    std::vector<ClusterNode> primaries() const;
    /// Every replica of a primary, each once.
    std::vector<ClusterNode> replicas() const;
    /// The replicas of the primary owning `slot`.
    std::vector<ClusterNode> replicasFor(int slot) const;
    /// Every node the reply named, failed ones and primaries without slots included (for
    /// showing the cluster; routing uses primaries() and replicas()).
    const std::vector<ClusterNode>& nodes() const { return m_nodes; }
    /// The primary of the shard `replica` belongs to; null for a primary or an unknown node.
    const ClusterNode* primaryOf(const ClusterNode& replica) const;
    /// The slots of the node at `address` as inclusive ranges, in order.
    std::vector<std::pair<int, int>> slotRanges(const QString& address) const;
    /// True when every slot has an owner.
    bool coversAllSlots() const;
    /// Slots owned by the node at `address` ("host:port").
    int slotCount(const QString& address) const;

    /// After "MOVED <slot> <host>:<port>": the slot is served there now (the node is added as
    /// a primary when it is new).
    void moveSlot(int slot, const ClusterNode& owner);

private:
    /// The index of the node at node's address, added when new.
    int nodeIndex(const ClusterNode& node);
    void assign(int first, int last, int primary, const std::vector<int>& replicas);
    void setShard(int primary, const std::vector<int>& replicas);

    std::vector<ClusterNode> m_nodes;
    std::vector<std::vector<int>> m_replicasOf; // per node index: its replicas' indexes
    std::vector<int> m_primaryOf; // per node index: its shard's primary (failed replicas too), -1
    std::array<qint16, kClusterSlots> m_owner; // node index per slot, -1 = none
};

} // namespace tollgate
