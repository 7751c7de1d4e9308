#pragma once

// ConnectionOptions: where and how to connect, built from a redis://, rediss://, unix://,
// redis+sentinel:// or redis+twemproxy:// URL, with the options of Sentinel, SSH tunnels and
// Twemproxy.

#include "tollgate/Result.h"
#include "tollgate/ServerOptions.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace tollgate {

/// The endpoint is a Twemproxy (nutcracker) pool: only commands the proxy forwards go through
/// it (no handshake commands, scripts with at least one key), and whatever needs a whole server
/// (SCAN, INFO, SLOWLOG, the events channel) goes to each backend directly, when they are known.
struct TwemproxyOptions
{
    bool enabled = false;
    /// A direct connection to one of a pool's backends (TwemproxyBackends): no proxy in
    /// between, but keys laid out as the proxy's clients lay them out.
    bool backendOfPool = false;
    /// The pool's redis-servers, as given (backends=) or read from the nutcracker YAML file
    /// (config= and pool=) when the options were built. Empty: whole-server work is refused.
    std::vector<NodeAddress> backends;
    /// Each backend's name in nutcracker's stats, in the same order: the YAML file's [name],
    /// or "host:port" (what the stats say for a server without a name).
    QStringList backendNames;
    /// nutcracker's stats port (-s), as given by stats=host:port; port 0 when not given.
    NodeAddress stats{QString(), 0};
    /// Where the backends came from, for messages ("" when given by hand).
    QString configFile;
    QString pool;
    /// The pool's hash_tag as the YAML file says it ("" when the file has none, or no file).
    QString hashTag;
};

/// A deployment watched by Redis Sentinel: the sentinels to ask and the name of the master they
/// watch. The server's own credentials, database, TLS and deadlines stay in ConnectionOptions;
/// TLS (rediss+sentinel://) applies to the sentinels and the servers alike.
struct SentinelOptions
{
    std::vector<NodeAddress> sentinels;
    QString masterName; // empty: not a Sentinel deployment
    QString user;       // the sentinels' own ACL user (sentinel_user); empty = none
    QString password;   // the sentinels' password (sentinel_password); never printed
    /// Connect to a healthy replica instead of the primary (replica=1), for a read-only console.
    bool replica = false;

    bool enabled() const { return !masterName.isEmpty(); }
    /// "mymaster via sentinels 10.0.0.1:26379, 10.0.0.2:26379", for status lines before the
    /// sentinels have named a server.
    QString describe() const;
};

/// How to reach Redis through an SSH server (docs/architecture.md, "SSH tunnels"). Empty
/// destination: directly. The system's OpenSSH client does the SSH part, so ~/.ssh/config
/// (host aliases, User, Port, IdentityFile, ProxyJump), the agent and known_hosts apply as
/// they do for `ssh` itself.
struct SshOptions
{
    /// "[user@]host[:port]", "[user@][v6 address]:port", or a Host alias of the ssh config.
    QString destination;
    QString configFile;   // ssh -F: instead of ~/.ssh/config
    QString identityFile; // ssh -i: a key to try first (the config's IdentityFile too)
    /// A host key not in known_hosts is added (StrictHostKeyChecking=accept-new) instead of
    /// refused. A changed host key is refused either way.
    bool acceptNewHostKey = false;
    /// The program ssh runs for passwords and passphrases (SSH_ASKPASS, always used); empty:
    /// ssh asks on the terminal itself.
    QString askPassProgram;

    bool enabled() const { return !destination.isEmpty(); }
    bool operator==(const SshOptions& other) const;
    bool operator!=(const SshOptions& other) const { return !(*this == other); }

    /// The destination checked: a clear message for "user@", "host:99999", spaces, a leading '-'.
    static Status validateDestination(const QString& destination);
    /// ssh's arguments naming the server and how to trust it, ending with the host:
    /// [-F config] [-i key] [-l user] [-p port] -o StrictHostKeyChecking=... -- host
    QStringList serverArguments() const;
};

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
