#pragma once

#include "core/redis/Result.h"
#include "core/redis/ServerOptions.h"
#include "core/client/TwemproxyOptions.h"
#include "core/sentinel/SentinelOptions.h"
#include "core/ssh/SshOptions.h"

#include <QString>

namespace tollgate {

/// Where and how to connect. Plain struct with sensible defaults; build one from a URL:
///   redis://[user:password@]host[:port][/db]
///   rediss://[user:password@]host[:port][/db]?ca=PATH&cert=PATH&key=PATH&sni=NAME&verify=0
///   unix:///path/to/redis.sock[?db=N]
///   redis+sentinel://[user:password@]host:port[,host:port...]/<master-name>[/db]
///     [?sentinel_user=NAME&sentinel_password=SECRET&replica=1]   (rediss+sentinel:// for TLS)
///   redis+twemproxy://[:password@]host:port[?backends=HOST:PORT,...]
///     [?config=<nutcracker.yml>&pool=NAME]   (a Twemproxy pool; its backends optional)
///     [&stats=HOST:PORT]   (nutcracker's stats port, for the console's Topology page)
/// Query options valid for every scheme: connect_timeout=MS, timeout=MS, heartbeat=MS (0 = off),
/// name=CLIENTNAME, cluster=0 (never treat the server as a Redis Cluster node).
struct ConnectionOptions : ServerOptions
{
    /// A Sentinel deployment: host and port are then whatever the sentinels name, asked again
    /// before every connection attempt (core/sentinel/SentinelLocator).
    SentinelOptions sentinel;
    /// Ask the server whether it is a Redis Cluster node (HELLO's "mode") and, if so, route
    /// every command to the node owning its keys. Off for the per-node connections a cluster
    /// client makes itself, or with cluster=0 in the URL.
    bool followCluster = true;
    /// Through an SSH server (core/ssh): host and port are then as that server sees them, and
    /// every connection made from these options (a cluster's nodes too) shares one SSH session.
    SshOptions ssh;
    /// A Twemproxy (nutcracker) pool: no handshake commands, only what the proxy forwards,
    /// whole-server work on the backends (core/client/TwemproxyBackends).
    TwemproxyOptions twemproxy;

    /// Error messages quote the URL with its password replaced by "***".
    static Result<ConnectionOptions> fromUrl(const QString& url);
    /// The text of a URL, well-formed or not, with any password replaced by "***"
    /// ("redis://alice:***@host", and the legacy "redis://***@host"), for messages and logs.
    static QString redactUrl(const QString& url);
    /// $TOLLGATE_PASSWORD, else $REDISCLI_AUTH (as redis-cli reads it), else empty: the
    /// ways to give a password that `ps` does not show.
    static QString passwordFromEnvironment();
    /// The URL back, without the password unless asked for.
    QString toUrl(bool withPassword = false) const;
    /// "host:port" or the socket path, for status lines and messages ("mymaster via sentinels
    /// ..." while the sentinels have not named a server yet; " via ssh DESTINATION" after it
    /// through a tunnel).
    QString endpoint() const;

private:
    static Result<ConnectionOptions> parseUrl(const QString& url);
};

} // namespace tollgate
