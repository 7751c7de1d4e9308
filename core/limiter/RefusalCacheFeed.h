#pragma once

#include "core/client/ConnectionOptions.h"
#include "core/keys/KeySchema.h"
#include "core/moderation/LimitEvent.h"

#include <QObject>
#include <memory>
#include <vector>

namespace tollgate {

class Client;
enum class ConnectionState;
class RefusalCache;

/// Keeps a RefusalCache true to Redis: subscribes the events channel on a connection of its
/// own and forgets what each write lifts (unban, reset, override: the user's refusals; policy:
/// everything, the policy's new revision then misses anyway). Every (re)subscription clears
/// the cache, since events sent while the connection was down are lost. Emits each event, for
/// callers that follow policies too. Lives on its creating thread.
class RefusalCacheFeed : public QObject
{
    Q_OBJECT
public:
    RefusalCacheFeed(ConnectionOptions options, KeySchema schema,
                     std::shared_ptr<RefusalCache> cache, QObject* parent = nullptr);
    ~RefusalCacheFeed() override;

    /// Connects and subscribes (again after every reconnect).
    void start();
    /// Whether the subscription is in force: while not, the cache stays empty.
    bool isSubscribed() const { return m_subscribed; }

Q_SIGNALS:
    void eventReceived(const tollgate::LimitEvent& event);
    /// The subscription is in force (first time, or after a reconnect).
    void subscribed();

private:
    void onMessage(const QByteArray& channel, const QByteArray& payload);

    void onState(Client* client, ConnectionState state);

    KeySchema m_schema;
    std::shared_ptr<RefusalCache> m_cache;
    // One server's connection, or through a Twemproxy pool one per backend: a script publishes
    // on the backend it runs on, so each must be heard. The cache is active while all are.
    std::vector<std::unique_ptr<Client>> m_clients;
    std::vector<Client*> m_subscribedClients;
    bool m_subscribed = false;
};

} // namespace tollgate
