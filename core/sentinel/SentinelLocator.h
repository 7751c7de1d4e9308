#pragma once

#include "core/redis/Endpoint.h"
#include "tollgate/ConnectionOptions.h"
#include "tollgate/Reply.h"

#include <QObject>
#include <memory>
#include <optional>
#include <set>
#include <vector>

namespace tollgate {

class NodeClients;

/// Finds the server of a Sentinel deployment for one Connection, on the connection's thread:
///  - locate() asks the sentinels in turn (SENTINEL GET-MASTER-ADDR-BY-NAME, or SENTINEL
///    REPLICAS for a replica), the one that answered last first; a sentinel that is down fails
///    at once (its connection is reconnecting) and the next is asked;
///  - each sentinel's +switch-master messages (a connection of its own per sentinel, subscribed
///    again after every reconnect) emit relocated() when the server located last is no longer
///    the one wanted: the connection reconnects, and so asks again;
///  - distrust(): the server named last was not what the sentinel said (ROLE), so the next
///    sentinel is asked first.
///  - the handshake asks the server's ROLE; one that is not what was asked for (or a primary
///    that answers READONLY) is dropped and the sentinels are asked again.
/// The sentinels are reached with the connection's TLS and deadlines and their own credentials
/// (sentinel_user, sentinel_password). The client (core/client) gives one to each connection
/// to a Sentinel deployment.
class SentinelLocator : public ServerLocator
{
    Q_OBJECT
public:
    SentinelLocator(const ConnectionOptions& options, QObject* parent);
    ~SentinelLocator() override;

    /// The address of the primary (or a healthy replica) as the first sentinel that knows it
    /// says; NotFound when every sentinel that answered knows no master of that name, else the
    /// errors of every sentinel. Not called back if this locator is destroyed first.
    void locate(Callback<NodeAddress> done) override;
    void distrust();
    /// The sentinel that named the server located last.
    QString lastSentinel() const;

    QString describe() const override { return m_sentinel.describe(); }
    std::optional<Command> handshakeCheck() const override;
    std::optional<Error> checkHandshake(const Result<Reply>& role,
                                        const QString& endpoint) override;
    std::optional<Error> checkErrorReply(const QByteArray& text,
                                         const QString& endpoint) const override;
    QString relocationReason(const NodeAddress& primary) const override;

private:
    struct Search;
    void ask(const std::shared_ptr<Search>& search, size_t index);
    void followSwitches();
    void onSwitch(const QByteArray& payload);
    Result<NodeAddress> serverIn(const Result<Reply>& reply) const;

    SentinelOptions m_sentinel;
    bool m_follow = false; // the connection reconnects: follow the sentinels' announcements
    std::unique_ptr<NodeClients> m_queries;
    std::unique_ptr<NodeClients> m_subscribers; // SUBSCRIBE +switch-master only
    std::vector<NodeAddress> m_order;           // whom to ask first
    std::optional<NodeAddress> m_located;
    std::set<QString> m_watched; // sentinels subscribed to
};

/// The address in a reply to SENTINEL GET-MASTER-ADDR-BY-NAME: NotFound for nil (the sentinel
/// watches no master of that name).
Result<NodeAddress> primaryAddressIn(const Reply& reply, const QString& masterName);
/// The healthy replica (not down, link ok) with the most replicated data in a reply to
/// SENTINEL REPLICAS; NotFound when there is none.
Result<NodeAddress> healthyReplicaIn(const Reply& reply, const QString& masterName);

} // namespace tollgate
