#include "core/client/NodeClients.h"

namespace tollgate {

NodeClients::NodeClients(ConnectionOptions seed) : m_seed(std::move(seed))
{
    m_seed.database = 0;
    m_seed.followCluster = false; // each of these talks to its one node
    m_seed.sentinel = {};         // ... itself, not whatever the sentinels name
}

Client* NodeClients::forNode(const QString& host, quint16 port)
{
    auto& client = m_clients[host + QLatin1Char(':') + QString::number(port)];
    if (!client) {
        ConnectionOptions options = m_seed;
        options.host = host;
        options.port = port;
        client = std::make_unique<Client>(options);
        client->open();
    }
    return client.get();
}

} // namespace tollgate
