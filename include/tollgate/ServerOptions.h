#pragma once

// ServerOptions: how one connection reaches one server (address, TLS, credentials, deadlines,
// back-pressure); ConnectionState: where that connection stands.

#include <QMetaType>
#include <QString>
#include <chrono>

namespace tollgate {

/// A server or sentinel: host and port.
struct NodeAddress
{
    QString host;
    quint16 port = 26379;

    QString text() const { return host + QLatin1Char(':') + QString::number(port); }
    bool operator==(const NodeAddress& o) const { return host == o.host && port == o.port; }
    bool operator!=(const NodeAddress& o) const { return !(*this == o); }
};

struct TlsOptions
{
    bool enabled = false;
    QString caFile;     // PEM bundle to trust; empty = system CAs
    QString certFile;   // client certificate (PEM), optional
    QString keyFile;    // client private key (PEM), optional
    QString serverName; // name to verify; empty = the host
    bool verifyPeer = true;
};

/// What one connection needs to reach one server and talk to it. The modes above a single
/// connection (Sentinel, SSH tunnels, Redis Cluster) add theirs in ConnectionOptions
/// (<tollgate/ConnectionOptions.h>), which callers use.
struct ServerOptions
{
    enum class Transport
    {
        Tcp,
        Unix
    };

    Transport transport = Transport::Tcp;
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 6379;
    QString socketPath;
    QString user;     // ACL user; empty = "default"
    QString password; // never written to disk by Tollgate
    int database = 0;
    TlsOptions tls;
    QString clientName = QStringLiteral("tollgate");

    std::chrono::milliseconds connectTimeout{3000};
    std::chrono::milliseconds commandTimeout{5000};
    /// After this long without a byte from the server, a PING (with the command deadline) proves
    /// the connection alive, or it is dropped and reconnected: a half-open socket, above all a
    /// subscriber's that only ever reads, is noticed instead of silently losing events. 0 = off.
    std::chrono::milliseconds heartbeatInterval{15000};
    /// Back-pressure: at most this many commands written and not yet answered; more wait in
    /// the connection (in order) until replies come back, and past maxQueued more a command
    /// fails at once with Busy instead of growing memory without bound.
    int maxInFlight = 10'000;
    int maxQueued = 100'000;
    bool autoReconnect = true;
    std::chrono::milliseconds reconnectMinDelay{100};
    std::chrono::milliseconds reconnectMaxDelay{5000};
};

enum class ConnectionState
{
    Disconnected, // not opened yet, or closed
    Connecting,   // first attempt: commands wait for it
    Connected,    // handshake done (AUTH, SELECT)
    Reconnecting, // lost or failed; retrying with backoff, commands fail fast
};

QString connectionStateName(ConnectionState state);

} // namespace tollgate

Q_DECLARE_METATYPE(tollgate::ConnectionState)
