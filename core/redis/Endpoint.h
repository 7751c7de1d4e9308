#pragma once

#include "core/redis/CommandBuilder.h"
#include "tollgate/Reply.h"
#include "tollgate/Result.h"
#include "tollgate/ServerOptions.h"

#include <QObject>
#include <functional>
#include <optional>

namespace tollgate {

// "Where do I connect now?" A Connection asks these before every attempt when its options
// alone cannot say. core/redis knows only the interfaces: the implementations live above it
// (core/sentinel, core/ssh), and the client that knows every mode (core/client) hands them to
// its connections, so the network stack's layers point one way (tests/unit/tst_Layers.cpp).

/// The server moves: a Sentinel deployment names it (core/sentinel/SentinelLocator). Lives on
/// the connection's thread, as its child.
class ServerLocator : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    /// The server to connect to now. Not called back if the locator is destroyed first.
    virtual void locate(Callback<NodeAddress> done) = 0;
    /// What to say for the server before it was first located ("mymaster via sentinels ...").
    virtual QString describe() const = 0;
    /// A command the handshake sends to check that the server is the one meant (ROLE), or
    /// nothing; its reply goes to checkHandshake().
    virtual std::optional<Command> handshakeCheck() const = 0;
    /// Why the server `endpoint` that answered `reply` is not the one meant (the connection
    /// drops it and asks again), or nothing when it is.
    virtual std::optional<Error> checkHandshake(const Result<Reply>& reply,
                                                const QString& endpoint) = 0;
    /// Why an error reply from `endpoint` means the server is no longer the one meant (a
    /// primary turned replica: READONLY), or nothing.
    virtual std::optional<Error> checkErrorReply(const QByteArray& text,
                                                 const QString& endpoint) const = 0;
    /// Why the connection leaves its server for `server` (relocated()), for the message.
    virtual QString relocationReason(const NodeAddress& server) const = 0;

Q_SIGNALS:
    /// The server moved away from the one located last (a failover): reconnect, ask again.
    void relocated(const tollgate::NodeAddress& server);
};

/// The server is reached through a local unix socket that stands for it: an SSH tunnel's
/// forward (core/ssh/SshTunnel). Shared by every connection made from the same options.
class Tunnel
{
public:
    using Forwarded = std::function<void(Result<QString>)>;

    virtual ~Tunnel() = default;
    /// The path of a local socket that reaches host:port as the tunnel's far end sees it.
    /// `done` may run on any thread. Any thread.
    virtual void forward(const QString& host, quint16 port, Forwarded done) = 0;
    /// How the server is reached, appended to its address in messages ("ssh bastion").
    virtual QString via() const = 0;
    /// Why the tunnel's last forwarded connection failed at the far end, when it said; else
    /// empty. Any thread.
    virtual QString lastForwardFailure() const = 0;
};

} // namespace tollgate
