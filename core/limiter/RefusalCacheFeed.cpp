#include "core/limiter/RefusalCacheFeed.h"

#include "core/client/Client.h"
#include "core/limiter/RefusalCache.h"

namespace tollgate {

RefusalCacheFeed::RefusalCacheFeed(ConnectionOptions options, KeySchema schema,
                                   std::shared_ptr<RefusalCache> cache, QObject* parent)
    : QObject(parent), m_schema(std::move(schema)), m_cache(std::move(cache))
{
    options.clientName += QStringLiteral("-events");
    m_client = std::make_unique<Client>(options);
    m_cache->setActive(false); // until subscribed
    connect(m_client.get(), &Client::stateChanged, this, [this](ConnectionState state) {
        if (state != ConnectionState::Connected) {
            m_subscribed = false;
            m_cache->setActive(false); // what happens meanwhile is not heard
            return;
        }
        m_client->execute({QByteArrayLiteral("SUBSCRIBE"), m_schema.eventsChannel()}, this,
                          [this](const Result<Reply>& reply) {
                              if (!reply)
                                  return;
                              m_cache->clear();
                              m_cache->setActive(true);
                              m_subscribed = true;
                              Q_EMIT subscribed();
                          });
    });
    connect(m_client.get(), &Client::messageReceived, this,
            [this](const QByteArray& channel, const QByteArray& payload) {
                onMessage(channel, payload);
            });
}

RefusalCacheFeed::~RefusalCacheFeed() = default;

void RefusalCacheFeed::start()
{
    m_client->open();
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
