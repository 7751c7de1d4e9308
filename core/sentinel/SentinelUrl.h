#pragma once

#include "tollgate/ConnectionOptions.h"

#include <QUrlQuery>

namespace tollgate {

/// The Sentinel URL forms, beside ConnectionOptions' own (which hands them over here):
///   redis+sentinel://[user:password@]host[:port][,host[:port]...]/<master-name>[/db]
///   rediss+sentinel://...   (TLS to the sentinels and the servers)
/// The credentials before "@" are the Redis servers'; the sentinels' own come from the query
/// options sentinel_user and sentinel_password. replica=1 asks for a replica instead of the
/// primary. A sentinel without a port is on 26379.
struct SentinelUrl
{
    ConnectionOptions options;
    /// The query options every scheme shares (timeout, heartbeat, ca, ...; the database of the
    /// path as db=N), for ConnectionOptions to apply and check as for any URL.
    QUrlQuery common;
};

/// "host[:port], host[:port], ..." (IPv6 in brackets, spaces allowed): the sentinels of a URL,
/// a profile or a form; an entry that is no address is an error naming it.
Result<std::vector<NodeAddress>> parseSentinelList(const QString& text);
/// The same list as text, "host:port,host:port".
QString sentinelListText(const std::vector<NodeAddress>& sentinels);

/// Whether `url` starts with redis+sentinel:// or rediss+sentinel:// (any case).
bool isSentinelUrl(const QString& url);
Result<SentinelUrl> parseSentinelUrl(const QString& url);
/// The URL of `options` (a Sentinel deployment) with `common` as its shared query options;
/// the passwords only when asked for.
QString sentinelUrl(const ConnectionOptions& options, QUrlQuery common, bool withPassword);

} // namespace tollgate
