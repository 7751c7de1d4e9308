#include "core/cluster/SlotMap.h"

#include <algorithm>

namespace tollgate {

namespace {

Error malformed(const QString& what)
{
    return Error{ErrorKind::Protocol,
                 QStringLiteral("unexpected cluster topology reply: %1").arg(what)};
}

// An announced endpoint, or the seed's host when the node does not know how it is reached.
QString reachableHost(const QByteArray& announced, const QString& seedHost)
{
    return announced.isEmpty() || announced == "?" ? seedHost : QString::fromUtf8(announced);
}

// A flat [name, value, name, value...] array as a lookup (values may be arrays).
const Reply* field(const Reply& map, const char* name)
{
    for (size_t i = 0; i + 1 < map.elements.size(); i += 2)
        if (map.elements[i].toBytes() == name)
            return &map.elements[i + 1];
    return nullptr;
}

bool validSlot(std::optional<qint64> slot)
{
    return slot && *slot >= 0 && *slot < kClusterSlots;
}

} // namespace

int SlotMap::nodeIndex(const ClusterNode& node)
{
    for (size_t i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i].sameAddress(node)) {
            if (m_nodes[i].id.isEmpty())
                m_nodes[i].id = node.id;
            return int(i);
        }
    m_nodes.push_back(node);
    m_replicasOf.emplace_back();
    m_primaryOf.push_back(-1);
    return int(m_nodes.size() - 1);
}

void SlotMap::assign(int first, int last, int primary, const std::vector<int>& replicas)
{
    for (int slot = first; slot <= last; ++slot)
        m_owner[size_t(slot)] = qint16(primary);
    auto& known = m_replicasOf[size_t(primary)];
    for (int replica : replicas)
        if (std::find(known.begin(), known.end(), replica) == known.end())
            known.push_back(replica);
}

void SlotMap::setShard(int primary, const std::vector<int>& replicas)
{
    for (int replica : replicas)
        m_primaryOf[size_t(replica)] = primary;
}

Result<SlotMap> SlotMap::fromShards(const Reply& reply, const QString& seedHost, bool tls)
{
    if (!reply.isArray())
        return malformed(QStringLiteral("CLUSTER SHARDS is not an array"));
    SlotMap map;
    for (const Reply& shard : reply.elements) {
        const Reply* slots = field(shard, "slots");
        const Reply* nodes = field(shard, "nodes");
        if (!slots || !nodes || slots->elements.size() % 2 != 0)
            return malformed(QStringLiteral("a shard without slots or nodes"));
        int primary = -1;
        std::vector<int> replicas;      // the ones that serve: routing may use them
        std::vector<int> shardReplicas; // failed ones too, to show where they belong
        for (const Reply& entry : nodes->elements) {
            const Reply* endpoint = field(entry, "endpoint");
            const Reply* tlsPort = field(entry, "tls-port");
            const Reply* port = tls && tlsPort ? tlsPort : field(entry, "port");
            const Reply* role = field(entry, "role");
            const Reply* health = field(entry, "health");
            const std::optional<qint64> number = port ? port->toInteger() : std::nullopt;
            if (!number || *number <= 0 || *number > 65535 || !role)
                return malformed(QStringLiteral("a node without port or role"));
            ClusterNode node;
            node.id = field(entry, "id") ? field(entry, "id")->toBytes() : QByteArray();
            node.host = reachableHost(endpoint ? endpoint->toBytes() : QByteArray(), seedHost);
            node.port = quint16(*number);
            node.primary = role->toBytes() == "master";
            node.failed = health && health->toBytes() == "fail";
            if (node.primary) {
                primary = map.nodeIndex(node);
                continue;
            }
            shardReplicas.push_back(map.nodeIndex(node));
            if (!node.failed) // "loading" too: 7.0 says so until the first write replicates
                replicas.push_back(shardReplicas.back());
        }
        if (primary >= 0)
            map.setShard(primary, shardReplicas);
        if (primary < 0) {
            if (!slots->elements.empty())
                return malformed(QStringLiteral("slots without a primary"));
            continue; // a shard that owns nothing yet
        }
        for (size_t i = 0; i < slots->elements.size(); i += 2) {
            const auto first = slots->elements[i].toInteger();
            const auto last = slots->elements[i + 1].toInteger();
            if (!validSlot(first) || !validSlot(last) || *first > *last)
                return malformed(QStringLiteral("a slot range outside 0..16383"));
            map.assign(int(*first), int(*last), primary, replicas);
        }
    }
    return map;
}

Result<SlotMap> SlotMap::fromSlots(const Reply& reply, const QString& seedHost)
{
    if (!reply.isArray())
        return malformed(QStringLiteral("CLUSTER SLOTS is not an array"));
    SlotMap map;
    for (const Reply& range : reply.elements) {
        if (range.elements.size() < 3)
            return malformed(QStringLiteral("a slot range without its primary"));
        const auto first = range.elements[0].toInteger();
        const auto last = range.elements[1].toInteger();
        if (!validSlot(first) || !validSlot(last) || *first > *last)
            return malformed(QStringLiteral("a slot range outside 0..16383"));
        int primary = -1;
        std::vector<int> replicas;
        for (size_t i = 2; i < range.elements.size(); ++i) {
            const Reply& entry = range.elements[i];
            const auto port =
                entry.elements.size() >= 2 ? entry.elements[1].toInteger() : std::nullopt;
            if (!port || *port <= 0 || *port > 65535)
                return malformed(QStringLiteral("a node without a port"));
            ClusterNode node;
            node.host = reachableHost(entry.elements[0].toBytes(), seedHost);
            node.port = quint16(*port);
            node.id = entry.elements.size() >= 3 ? entry.elements[2].toBytes() : QByteArray();
            node.primary = i == 2;
            if (node.primary)
                primary = map.nodeIndex(node);
            else
                replicas.push_back(map.nodeIndex(node));
        }
        map.assign(int(*first), int(*last), primary, replicas);
        map.setShard(primary, replicas);
    }
    return map;
}

const ClusterNode* SlotMap::primaryFor(int slot) const
{
    if (slot < 0 || slot >= kClusterSlots || m_owner[size_t(slot)] < 0)
        return nullptr;
    return &m_nodes[size_t(m_owner[size_t(slot)])];
}

std::vector<ClusterNode> SlotMap::primaries() const
{
    std::vector<bool> owns(m_nodes.size(), false);
    for (qint16 owner : m_owner)
        if (owner >= 0)
            owns[size_t(owner)] = true;
    std::vector<ClusterNode> out;
    for (size_t i = 0; i < m_nodes.size(); ++i)
        if (owns[i])
            out.push_back(m_nodes[i]);
    return out;
}

std::vector<ClusterNode> SlotMap::replicas() const
{
    std::vector<bool> listed(m_nodes.size(), false);
    std::vector<ClusterNode> out;
    for (const std::vector<int>& replicas : m_replicasOf)
        for (int replica : replicas)
            if (!listed[size_t(replica)]) {
                listed[size_t(replica)] = true;
                out.push_back(m_nodes[size_t(replica)]);
            }
    return out;
}

std::vector<ClusterNode> SlotMap::replicasFor(int slot) const
{
    std::vector<ClusterNode> out;
    if (slot < 0 || slot >= kClusterSlots || m_owner[size_t(slot)] < 0)
        return out;
    for (int replica : m_replicasOf[size_t(m_owner[size_t(slot)])])
        out.push_back(m_nodes[size_t(replica)]);
    return out;
}

const ClusterNode* SlotMap::primaryOf(const ClusterNode& replica) const
{
    for (size_t i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i].sameAddress(replica))
            return m_primaryOf[i] < 0 ? nullptr : &m_nodes[size_t(m_primaryOf[i])];
    return nullptr;
}

std::vector<std::pair<int, int>> SlotMap::slotRanges(const QString& address) const
{
    std::vector<std::pair<int, int>> ranges;
    const auto node = std::find_if(m_nodes.begin(), m_nodes.end(),
                                   [&](const ClusterNode& n) { return n.address() == address; });
    if (node == m_nodes.end())
        return ranges;
    const auto index = qint16(node - m_nodes.begin());
    for (int slot = 0; slot < kClusterSlots; ++slot) {
        if (m_owner[size_t(slot)] != index)
            continue;
        if (!ranges.empty() && ranges.back().second == slot - 1)
            ranges.back().second = slot;
        else
            ranges.emplace_back(slot, slot);
    }
    return ranges;
}

bool SlotMap::coversAllSlots() const
{
    return std::all_of(m_owner.begin(), m_owner.end(), [](qint16 owner) { return owner >= 0; });
}

int SlotMap::slotCount(const QString& address) const
{
    int count = 0;
    for (qint16 owner : m_owner)
        if (owner >= 0 && m_nodes[size_t(owner)].address() == address)
            ++count;
    return count;
}

void SlotMap::moveSlot(int slot, const ClusterNode& owner)
{
    if (slot < 0 || slot >= kClusterSlots)
        return;
    ClusterNode primary = owner;
    primary.primary = true;
    const int index = nodeIndex(primary);
    m_nodes[size_t(index)].primary = true;
    m_owner[size_t(slot)] = qint16(index);
}

} // namespace tollgate
