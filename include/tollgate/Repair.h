#pragma once

// Repair: finds keys of Tollgate's that lost the TTL they need, and fixes them.

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <chrono>
#include <functional>
#include <vector>

namespace tollgate {

class TwemproxyBackends;

/// A key of ours that has no TTL but needs one (repair.lua said "would_fix" or "fixed"), or
/// one in a place of our schema that holds another Redis type ("wrong_type": repair.lua skips
/// it, no TTL would help; every script touching it fails until it is deleted).
struct RepairItem
{
    QByteArray key;
    KeySchema::Parsed parsed;
    QString status;   // would_fix (dry run) | fixed | wrong_type
    qint64 ttlMs = 0; // the TTL a fix sets / has set (0: an ended ban, deleted); wrong_type: -1
    QByteArray type;  // wrong_type: what the key holds (TYPE)
    QByteArray expectedType; // wrong_type: what the schema says it must be
};

struct RepairProgress
{
    qint64 scanned = 0; // keys seen by SCAN so far
    qint64 found = 0;   // keys without the TTL they need
    qint64 fixed = 0;   // of those, repaired
};

struct RepairOptions
{
    bool fix = false;    // false = dry run: report only
    QString actor;       // for the audit entries of the fixes
    QString reason;      // why: required with fix, recorded in the audit entry
    int scanCount = 500; // SCAN COUNT hint, also the largest batch passed to the script
    std::chrono::milliseconds pause{0}; // between SCAN calls, to stay gentle on a busy server
    qint64 maxItems = 100'000;          // items kept in the report; the totals keep counting
    // Streaming, uncapped: every found item goes here as its batch is checked (on the
    // client's worker thread), whatever maxItems keeps in the report.
    std::function<void(std::vector<RepairItem>& found)> onFound;
};

struct RepairReport
{
    // run(): the keys needing a TTL, then those of the wrong type; fixKeys(): every key asked
    std::vector<RepairItem> items;
    RepairProgress totals;
    qint64 skipped = 0;     // keys without TTL that repair.lua does not recognise as ours
    qint64 wrongType = 0;   // of the keys it skipped, those of our schema holding another type
    bool cancelled = false; // the progress callback asked to stop
};

/// Finds keys of ours that lost their TTL (an interrupted INCR + EXPIRE by an older client, a
/// manual SET) and, with `fix`, gives them the TTL they need.
class Repair
{
public:
    /// Called on the client's worker thread after each batch; return false to stop.
    using ProgressFn = std::function<bool(const RepairProgress&)>;

    Repair(Client* client, KeySchema schema);

    /// Client-side SCAN over <p>:{* (never KEYS), each batch grouped by user hash tag and
    /// passed to repair.lua (EVALSHA) once per user, so every call touches one Cluster slot.
    /// The keys it skips that have a place in our schema are asked their TYPE: those of
    /// another type are reported as "wrong_type" (not fixed: they need deleting).
    /// Each call that fixes something writes its "repair" audit entry (the user's stream and
    /// the global one) in the same script: a fix is never on record without its keys, nor
    /// the other way round.
    void run(const RepairOptions& options, ProgressFn progress, Context context,
             Callback<RepairReport> done) const;

    /// Fixes exactly `keys` (e.g. rows picked in the console), whatever a previous run said
    /// about them: a key that lost its TTL again is fixed again, one with a TTL is reported
    /// "ok". One repair.lua call per user, in turn, so `progress` can stop between users.
    /// `options.fix` is implied; scanCount, pause and maxItems are not used.
    void fixKeys(const QList<QByteArray>& keys, const RepairOptions& options, ProgressFn progress,
                 Context context, Callback<RepairReport> done) const;

    /// The audit entry of a fix names at most this many keys, then a count (repair.lua's
    /// MAX_NAMED_KEYS); the console's confirmation lists as many.
    static constexpr int kMaxNamedKeys = 20;

private:
    // run() through a Twemproxy pool: on each backend directly, the reports summed.
    static void runOnBackends(TwemproxyBackends* backends, const KeySchema& schema,
                              const RepairOptions& options, ProgressFn progress, Context context,
                              Callback<RepairReport> done);

    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
