#pragma once

#include "core/client/Client.h"
#include "core/cluster/SlotMap.h"

#include <map>
#include <memory>

namespace tollgate {

/// One Client per cluster node, opened on first use with the seed's options (user, password,
/// TLS, timeouts) and the node's address; database 0, the only one a cluster has.
class NodeClients
{
public:
    explicit NodeClients(ConnectionOptions seed);

    Client* forNode(const ClusterNode& node);
    /// The node the user named.
    Client* seed() { return forNode({{}, m_seed.host, m_seed.port, true}); }
    const ConnectionOptions& seedOptions() const { return m_seed; }

private:
    ConnectionOptions m_seed;
    std::map<QString, std::unique_ptr<Client>> m_clients; // by "host:port"
};

} // namespace tollgate
