#include "tollgate/RefusalCache.h"

#include "tollgate/Client.h"

#include <algorithm>

namespace tollgate {

RefusalCacheFeed::RefusalCacheFeed(ConnectionOptions options, KeySchema schema,
                                   std::shared_ptr<RefusalCache> cache, QObject* parent)
    : QObject(parent), m_schema(std::move(schema)), m_cache(std::move(cache))
{
    std::vector<ConnectionOptions> servers{options};
    if (options.twemproxy.enabled) {
        // The proxy forwards no SUBSCRIBE: each backend directly. Without them the cache
        // stays off (nothing would say when a refusal is lifted).
        servers.clear();
        for (const NodeAddress& backend : options.twemproxy.backends) {
            ConnectionOptions direct = options;
            direct.twemproxy = {};
            direct.twemproxy.backendOfPool = true;
            direct.clientName = QStringLiteral("tollgate");
            direct.host = backend.host;
            direct.port = backend.port;
            servers.push_back(direct);
        }
    }
    m_cache->setActive(false); // until subscribed
    for (ConnectionOptions& server : servers) {
        server.clientName += QStringLiteral("-events");
        m_clients.push_back(std::make_unique<Client>(server));
        Client* client = m_clients.back().get();
        connect(client, &Client::stateChanged, this,
                [this, client](ConnectionState state) { onState(client, state); });
        connect(client, &Client::messageReceived, this,
                [this](const QByteArray& channel, const QByteArray& payload) {
                    onMessage(channel, payload);
                });
    }
}

void RefusalCacheFeed::onState(Client* client, ConnectionState state)
{
    if (state != ConnectionState::Connected) {
        m_subscribedClients.erase(
            std::remove(m_subscribedClients.begin(), m_subscribedClients.end(), client),
            m_subscribedClients.end());
        m_subscribed = false;
        m_cache->setActive(false); // what happens meanwhile is not heard
        return;
    }
    client->execute({QByteArrayLiteral("SUBSCRIBE"), m_schema.eventsChannel()}, this,
                    [this, client](const Result<Reply>& reply) {
                        if (!reply)
                            return;
                        if (std::find(m_subscribedClients.begin(), m_subscribedClients.end(),
                                      client) == m_subscribedClients.end())
                            m_subscribedClients.push_back(client);
                        if (m_subscribedClients.size() < m_clients.size())
                            return;
                        m_cache->clear();
                        m_cache->setActive(true);
                        m_subscribed = true;
                        Q_EMIT subscribed();
                    });
}

RefusalCacheFeed::~RefusalCacheFeed() = default;

void RefusalCacheFeed::start()
{
    for (const auto& client : m_clients)
        client->open();
}

void RefusalCacheFeed::onMessage(const QByteArray& channel, const QByteArray& payload)
{
    if (channel != m_schema.eventsChannel())
        return;
    const std::optional<LimitEvent> event = LimitEvent::parse(payload);
    if (!event)
        return;
    if (event->event == "policy")
        m_cache->clear();
    else if (event->event != "ban") // a ban refuses more, it lifts nothing
        m_cache->forgetUser(event->user, event->action);
    Q_EMIT eventReceived(*event);
}

} // namespace tollgate
