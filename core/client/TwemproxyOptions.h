#pragma once

#include "core/redis/ServerOptions.h"

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

} // namespace tollgate
