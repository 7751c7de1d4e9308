#pragma once

#include "core/redis/ServerOptions.h"

#include <QString>
#include <vector>

namespace tollgate {

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

} // namespace tollgate
