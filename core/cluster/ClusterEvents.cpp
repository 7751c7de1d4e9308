#include "core/cluster/ClusterEvents.h"

namespace tollgate {

ClusterEvents::ClusterEvents(ConnectionOptions seed, QByteArray eventsChannel,
                             QByteArray keyspacePattern, QObject* parent)
    : QObject(parent), m_subscribers(std::move(seed)), m_eventsChannel(std::move(eventsChannel)),
      m_keyspacePattern(std::move(keyspacePattern))
{
}

void ClusterEvents::follow(const SlotMap& map)
{
    std::set<QString> primaries;
    for (const ClusterNode& primary : map.primaries())
        primaries.insert(primary.address());
    // Messages from a node that stopped being a primary are ignored from now on (its
    // connection stays, unsubscribed work is not worth a reconnect dance).
    m_keyspaceNodes = primaries;
    if (!primaries.count(m_eventsNode))
        m_eventsNode = primaries.empty() ? QString() : *primaries.begin();
    for (const ClusterNode& primary : map.primaries())
        watch(primary);
}

void ClusterEvents::watch(const ClusterNode& node)
{
    const QString address = node.address();
    Client* client = m_subscribers.forNode(node);
    if (m_watched.insert(address).second) {
        connect(client, &Client::stateChanged, this,
                [this, client, address](ConnectionState state) {
                    if (state == ConnectionState::Connected)
                        subscribe(client, address); // again after every reconnect
                });
        connect(client, &Client::messageReceived, this,
                [this, address](const QByteArray& channel, const QByteArray& payload,
                                const QByteArray& pattern) {
                    const bool events = pattern.isEmpty();
                    if (events ? address == m_eventsNode : m_keyspaceNodes.count(address) > 0)
                        Q_EMIT messageReceived(channel, payload, pattern);
                });
    }
    if (client->state() == ConnectionState::Connected)
        subscribe(client, address);
}

void ClusterEvents::subscribe(Client* client, const QString& address)
{
    const auto ignore = [](const Result<Reply>&) {};
    if (address == m_eventsNode && !m_eventsChannel.isEmpty())
        client->execute({QByteArrayLiteral("SUBSCRIBE"), m_eventsChannel}, this, ignore);
    if (!m_keyspacePattern.isEmpty() && m_keyspaceNodes.count(address))
        client->execute({QByteArrayLiteral("PSUBSCRIBE"), m_keyspacePattern}, this, ignore);
}

} // namespace tollgate
