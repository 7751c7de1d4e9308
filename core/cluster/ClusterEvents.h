#pragma once

#include "core/client/NodeClients.h"
#include "core/cluster/SlotMap.h"

#include <QObject>
#include <set>

namespace tollgate {

/// Pub/sub on a cluster. Keyspace notifications are node-local, so the keyspace pattern is
/// subscribed on every primary; a PUBLISH reaches every node, so the events channel is
/// subscribed on one node only (else each event would arrive once per node). Each subscription
/// has its own connection, renewed after every reconnect. Lives on its creating thread;
/// messageReceived() is emitted there.
class ClusterEvents : public QObject
{
    Q_OBJECT
public:
    /// `keyspacePattern` empty = no keyspace notifications (the server has them off);
    /// `eventsChannel` empty = none (someone else subscribes it).
    ClusterEvents(ConnectionOptions seed, QByteArray eventsChannel, QByteArray keyspacePattern,
                  QObject* parent = nullptr);

    /// Subscribes on the primaries of `map`; call again after the topology changed: nodes that
    /// are no longer primaries are dropped, new ones subscribed.
    void follow(const SlotMap& map);
    /// Addresses subscribed to the keyspace pattern; the one subscribed to the events channel.
    std::set<QString> keyspaceNodes() const { return m_keyspaceNodes; }
    QString eventsNode() const { return m_eventsNode; }

Q_SIGNALS:
    /// As Client::messageReceived: `pattern` is empty for the events channel.
    void messageReceived(const QByteArray& channel, const QByteArray& payload,
                         const QByteArray& pattern);

private:
    void watch(const ClusterNode& node);
    void subscribe(Client* client, const QString& address);

    NodeClients m_subscribers; // connections used for nothing but SUBSCRIBE / PSUBSCRIBE
    QByteArray m_eventsChannel;
    QByteArray m_keyspacePattern;
    std::set<QString> m_watched;       // nodes whose signals are connected
    std::set<QString> m_keyspaceNodes; // current primaries
    QString m_eventsNode;
};

} // namespace tollgate
