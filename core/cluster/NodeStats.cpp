#include "core/cluster/NodeStats.h"

#include <QMutex>
#include <algorithm>

namespace tollgate {

std::map<QByteArray, QByteArray> NodeStats::parseInfo(const QByteArray& text)
{
    std::map<QByteArray, QByteArray> fields;
    for (const QByteArray& line : text.split('\n')) {
        const QByteArray trimmed = line.trimmed();
        const qsizetype colon = trimmed.indexOf(':');
        if (trimmed.isEmpty() || trimmed.startsWith('#') || colon < 0)
            continue;
        fields[trimmed.left(colon)] = trimmed.mid(colon + 1);
    }
    return fields;
}

NodeStats NodeStats::fromInfo(const QByteArray& text)
{
    const auto info = parseInfo(text);
    const auto number = [&info](const char* name) {
        const auto it = info.find(name);
        return it == info.end() ? qint64(0) : it->second.toLongLong();
    };
    NodeStats stats;
    stats.opsPerSec = number("instantaneous_ops_per_sec");
    stats.usedMemory = number("used_memory");
    stats.connectedClients = number("connected_clients");
    const auto role = info.find("role");
    stats.primary = role == info.end() || role->second == "master";
    const char* offset = stats.primary ? "master_repl_offset" : "slave_repl_offset";
    stats.replicationOffset = info.count(offset) ? number(offset) : -1;
    stats.lastIoSecondsAgo =
        info.count("master_last_io_seconds_ago") ? number("master_last_io_seconds_ago") : -1;
    // "db0:keys=12,expires=3,avg_ttl=0"
    const auto db0 = info.find("db0");
    if (db0 != info.end())
        for (const QByteArray& part : db0->second.split(','))
            if (part.startsWith("keys="))
                stats.keys = part.mid(5).toLongLong();
    return stats;
}

void sampleClusterStats(NodeClients* clients, const SlotMap& map, Context context,
                        Callback<ClusterStats> done)
{
    std::vector<ClusterNode> nodes = map.primaries();
    for (const ClusterNode& replica : map.replicas())
        nodes.push_back(replica);
    sampleNodeStats(clients, nodes, std::move(context), std::move(done));
}

namespace {

NodeStats answered(const ClusterNode& node, const std::vector<Result<Reply>>& replies)
{
    NodeStats stats = NodeStats::fromInfo(replies[0]->toBytes());
    stats.address = node.address();
    if (replies[1]) {
        const auto info = NodeStats::parseInfo(replies[1]->toBytes());
        const auto field = [&info](const char* name) {
            const auto it = info.find(name);
            return it == info.end() ? QByteArray() : it->second;
        };
        stats.clusterState = field("cluster_state");
        stats.clusterSlotsOk = field("cluster_slots_ok").toInt();
    }
    return stats;
}

void finish(ClusterStats& out)
{
    const auto order = [](const NodeStats& a, const NodeStats& b) {
        return std::make_pair(!a.primary, a.address) < std::make_pair(!b.primary, b.address);
    };
    std::sort(out.nodes.begin(), out.nodes.end(), order);
    std::sort(out.unanswered.begin(), out.unanswered.end(), order);
    out.unreachable = int(out.unanswered.size());
    for (const NodeStats& n : out.nodes) {
        if (n.primary)
            out.primariesTotal.add(n);
    }
}

} // namespace

void NodeStats::add(const NodeStats& other)
{
    opsPerSec += other.opsPerSec;
    usedMemory += other.usedMemory;
    connectedClients += other.connectedClients;
    keys += other.keys;
}

void sampleNodeStats(NodeClients* clients, const std::vector<ClusterNode>& nodes, Context context,
                     Callback<ClusterStats> done)
{
    if (nodes.empty()) {
        deliver(context, done, Result<ClusterStats>(ClusterStats{}));
        return;
    }
    // The replies arrive on each node's worker thread: collected under a lock, delivered by
    // whichever comes last.
    struct Gather
    {
        QMutex mutex;
        ClusterStats stats;
        size_t pending = 0;
    };
    auto gather = std::make_shared<Gather>();
    gather->pending = nodes.size();
    for (const ClusterNode& node : nodes) {
        clients->forNode(node)->executeBatch(
            {{QByteArrayLiteral("INFO")},
             {QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("INFO")}},
            nullptr, [gather, node, context, done](std::vector<Result<Reply>> replies) {
                QMutexLocker lock(&gather->mutex);
                if (replies.size() == 2 && replies[0]) {
                    gather->stats.nodes.push_back(answered(node, replies));
                } else {
                    NodeStats missing;
                    missing.address = node.address();
                    missing.primary = node.primary;
                    missing.error = replies.empty() ? QStringLiteral("no reply")
                                                    : replies[0].error().toString();
                    gather->stats.unanswered.push_back(missing);
                }
                if (--gather->pending > 0)
                    return;
                ClusterStats out = std::move(gather->stats);
                lock.unlock();
                finish(out);
                deliver(context, done, Result<ClusterStats>(std::move(out)));
            });
    }
}

} // namespace tollgate
