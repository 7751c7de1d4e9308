#pragma once

#include "tollgate/Client.h"

#include <vector>

namespace tollgate {

/// One entry of the server's slow log, with the Tollgate script it ran when it was one.
struct SlowlogEntry
{
    qint64 id = 0;
    qint64 timeSec = 0;          // when it ran (unix seconds, server clock)
    qint64 durationUs = 0;       // execution time, microseconds (network excluded)
    QList<QByteArray> arguments; // as the server logged them (it truncates long ones)
    QByteArray client;           // "ip:port"
    QByteArray clientName;
    QString script; // "hit" for EVALSHA/EVALSHA_RO of a script of ours; else empty
};

/// SLOWLOG GET `count` (read-only; never SLOWLOG RESET), newest first; on a cluster every
/// primary's log, merged by time.
void readSlowlog(Client* client, int count, Context context,
                 Callback<std::vector<SlowlogEntry>> done);

/// Parses a SLOWLOG GET reply; the script name comes from ScriptLibrary by SHA1.
std::vector<SlowlogEntry> parseSlowlog(const Reply& reply);

} // namespace tollgate
