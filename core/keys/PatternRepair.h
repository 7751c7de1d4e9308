#pragma once

#include "tollgate/Repair.h"

namespace tollgate {

/// What a pattern repair looks for and what it gives.
struct PatternRepairOptions
{
    QByteArray pattern;  // SCAN MATCH glob of another client's keys, e.g. "likes:*"
    qint64 ttlMs = 0;    // the TTL a key without one gets (1 ms .. 10 years)
    bool fix = false;    // false = dry run: list the keys without a TTL, change nothing
    QString actor;       // for the audit entries of the fixes
    QString reason;      // why: required with fix, recorded in the audit entries
    qint64 rate = 0;     // keys examined per second at most (all servers together); 0 = no cap
    int scanCount = 500; // SCAN COUNT hint (kept at or below rate)
    qint64 maxItems = 100'000; // items kept in the report; the totals keep counting
    /// Streaming, uncapped: each batch's keys without a TTL ("would_fix" or "fixed"), on a
    /// worker thread, whatever maxItems keeps in the report.
    std::function<void(std::vector<RepairItem>& found)> onFound;
};

/// Gives a TTL to keys another client wrote and left without one (the two-command
/// INCR/EXPIRE counter's keys, matched by a pattern the operator names): SCAN from the client
/// (never inside a script), on every server that holds keys (each backend of a Twemproxy pool
/// directly, each primary of a cluster), paced to `rate` keys a second. The fix of a key is
/// atomic with the check (a key that got a TTL meanwhile is left alone) and with its audit
/// entry: one "repair" entry per call, in a stream on the keys' own server (the global stream
/// on one server, the pool's policy stream on each backend) or, on a cluster, in their slot
/// (the stream of the user their hash tag names; a key whose slot has no such stream is
/// skipped). Tollgate's own keys (under the prefix) are left to Repair.
class PatternRepair
{
public:
    PatternRepair(Client* client, KeySchema schema);

    /// report.skipped counts Tollgate's own keys and, on a cluster, the keys without an
    /// audit stream in their slot. `progress` runs on a worker thread after each batch.
    void run(const PatternRepairOptions& options, Repair::ProgressFn progress, Context context,
             Callback<RepairReport> done) const;

    /// The options' error, if any (what run() would refuse before sending anything).
    static Status validate(const PatternRepairOptions& options, const KeySchema& schema);

private:
    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
