#pragma once

#include "tollgate/Client.h"

#include <map>
#include <memory>

namespace tollgate {

/// One Client per server, opened on first use with the seed's options (user, password, TLS,
/// timeouts, the SSH tunnel) and the server's address; database 0, the only one a cluster has.
/// The nodes of a Redis Cluster (core/cluster), the sentinels of a Sentinel deployment
/// (core/sentinel).
class NodeClients
{
public:
    explicit NodeClients(ConnectionOptions seed);

    Client* forNode(const QString& host, quint16 port);
    /// A node as any address type names it (ClusterNode, NodeAddress): its host and port.
    template <typename Node> Client* forNode(const Node& node)
    {
        return forNode(node.host, node.port);
    }
    /// The node the user named.
    Client* seed() { return forNode(m_seed.host, m_seed.port); }
    const ConnectionOptions& seedOptions() const { return m_seed; }

private:
    ConnectionOptions m_seed;
    std::map<QString, std::unique_ptr<Client>> m_clients; // by "host:port"
};

} // namespace tollgate
