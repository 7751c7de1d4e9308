#pragma once

#include "tollgate/ConnectionOptions.h"
#include "tollgate/Result.h"

#include <QByteArray>
#include <QObject>
#include <QStringList>
#include <functional>
#include <vector>

namespace tollgate {

/// What nutcracker's stats port says of one backend of a pool.
struct TwemproxyServerStats
{
    QString name;              // as the stats key it: its [name] or "host:port"
    qint64 ejectedAt = 0;      // server_ejected_at, µs since the epoch; 0: never ejected
    qint64 errors = 0;         // server_err
    qint64 timeouts = 0;       // server_timedout
    qint64 closedByServer = 0; // server_eof
    qint64 connections = 0;    // server_connections
    qint64 requests = 0;
    qint64 responses = 0;
};

/// One pool's figures from nutcracker's stats port (-s): a JSON object written on connect.
/// The counters are the proxy's own, since it started (uptime).
struct TwemproxyPoolStats
{
    QString pool;
    QString version;
    qint64 uptimeSeconds = 0;
    qint64 ejections = 0;     // server_ejects, all backends together
    qint64 forwardErrors = 0; // forward_error: requests the proxy answered with an error
    qint64 clientConnections = 0;
    std::vector<TwemproxyServerStats> servers;

    /// The stats of the backend named `name`, or nullptr.
    const TwemproxyServerStats* server(const QString& name) const;

    /// Reads pool `pool` from the stats JSON; an empty `pool` takes the only pool there is.
    /// Protocol naming what is wrong when it is not nutcracker's stats, NotFound without it.
    static Result<TwemproxyPoolStats> parse(const QByteArray& json, const QString& pool);
};

/// Connects to the stats port at `address`, reads the JSON it writes and closes, then calls
/// `done` in `context`'s thread; an error (refused, nothing within `deadlineMs`, bad JSON)
/// rather than a wait. Never blocks.
void readTwemproxyStats(const NodeAddress& address, const QString& pool, int deadlineMs,
                        QObject* context, std::function<void(Result<TwemproxyPoolStats>)> done);

} // namespace tollgate
