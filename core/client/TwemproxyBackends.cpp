#include "core/client/TwemproxyBackends.h"

#include "tollgate/Client.h"

namespace tollgate {

TwemproxyBackends::TwemproxyBackends(const ConnectionOptions& proxy)
    : m_template(proxy), m_addresses(proxy.twemproxy.backends)
{
    m_template.twemproxy = {};
    m_template.twemproxy.backendOfPool = true; // keys as the proxy's clients lay them out
    m_template.followCluster = false;
    m_template.clientName = QStringLiteral("tollgate");
    m_clients.resize(m_addresses.size());
}

TwemproxyBackends::~TwemproxyBackends() = default;

Client* TwemproxyBackends::at(int i)
{
    QMutexLocker lock(&m_mutex);
    auto& client = m_clients[size_t(i)];
    if (!client) {
        ConnectionOptions options = m_template;
        options.host = m_addresses[size_t(i)].host;
        options.port = m_addresses[size_t(i)].port;
        client = std::make_unique<Client>(options);
        client->open();
    }
    return client.get();
}

Error TwemproxyBackends::missing(const QString& what)
{
    return {ErrorKind::InvalidInput,
            what + QStringLiteral(" needs the Twemproxy pool's backends, which the proxy does not "
                                  "forward it to: add backends=host:port,... or "
                                  "config=<nutcracker.yml>&pool=<name> to the URL")};
}

} // namespace tollgate
