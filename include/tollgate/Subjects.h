#pragma once

// Subjects: every user x action with state or a ban, and its usage now.

#include "tollgate/Client.h"
#include "tollgate/HitResult.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Moderation.h"
#include "tollgate/PolicyStore.h"

#include <QByteArray>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace tollgate {

/// (user, action); action is empty for a row that only carries a user-wide ban.
using SubjectKey = std::pair<QByteArray, QByteArray>;

/// One user x action pair that has state or a ban in Redis, with its usage now (Usage.h).
struct Subject
{
    QByteArray user;
    QByteArray action;              // empty: a row for a user-wide ban only
    bool hasPolicy = false;         // false: keys exist but the action has no valid policy
    bool stateKnown = false;        // `state` was read (a policy, and no bad key)
    HitResult state;                // usage now: count, limit, remaining, tier, resetMs
    std::optional<BanInfo> ban;     // ban of this action
    std::optional<BanInfo> userBan; // ban of every action of the user
    QString error; // what is wrong on this row (a bad key, named; an invalid policy)

    SubjectKey key() const { return {user, action}; }
    bool banned() const { return ban.has_value() || userBan.has_value(); }
    /// The ban that applies (the action's first), or null.
    const BanInfo* activeBan() const { return ban ? &*ban : userBan ? &*userBan : nullptr; }
    bool nearLimit() const;
};

/// The policies as the readers need them: valid ones by action, invalid ones with the reason.
struct PolicyCatalog
{
    std::map<QByteArray, Policy> valid;
    std::map<QByteArray, QString> invalid;

    static PolicyCatalog from(const PolicyListing& listing);
};

struct SubjectsOptions
{
    QByteArray action;      // only this action; empty = every action
    QByteArray userPrefix;  // only users whose id starts with these bytes; empty = all
    qint64 maxSubjects = 0; // stop after this many; 0 = all of them
    int scanCount = 1000;   // SCAN COUNT hint
    int readsInFlight = 4;  // read batches outstanding at once: bounds memory and load
    // 0: as fast as readsInFlight allows. Else the load is held to about this many commands
    // a second: each SCAN and each read batch (its ban round and peeks included, a script's
    // inner commands estimated as Client::commandCount counts them) is charged what it sent,
    // and the next SCAN waits until that is paid. The cost per subject depends on the
    // policies (two reads per window, a peek for other algorithms), so no fixed pause could.
    int commandsPerSecond = 0;
    // True: a subject may come again later in the same pass. Without an action filter the
    // scan lists every key of its users, ban keys and overrides hashes included, so the reads
    // skip their EXISTS round (the larger part of the server's work per subject); a subject
    // read before its ban key or overrides turned up is read again, and comes again, then.
    // For a caller that keeps the last of each subject (the Subjects page), not one that
    // prints each as it comes.
    bool mayRepeat = false;
};

struct SubjectsProgress
{
    qint64 scanned = 0;     // keys SCAN returned so far
    qint64 subjects = 0;    // distinct subjects delivered so far
    bool truncated = false; // stopped at maxSubjects
    int readsPeak = 0;      // most read batches outstanding at once (readsInFlight bounds it)
};

struct SubjectList
{
    std::vector<Subject> subjects; // sorted by user, then action
    qint64 scanned = 0;
    bool truncated = false;
    std::vector<InvalidPolicy> invalidPolicies;
};

/// "Subjects with their usage": the one implementation behind the CLI, the Subjects page, the
/// dashboard's near-limit list and the user detail.
///
/// stream(): client-side SCAN <p>:{<user prefix>* (COUNT >= 1000), each batch's new subjects
/// (deduplicated: SCAN may return a key twice) read with SubjectReader's pipelined raw reads,
/// at most readsInFlight batches outstanding, delivered in SCAN order as they complete. No cap
/// unless asked; memory stays constant apart from 8-16 bytes per subject for the dedup.
class Subjects
{
public:
    Subjects(Client* client, KeySchema schema);

    /// Return false from onBatch to stop. Both callbacks run on the client's worker thread;
    /// `onPolicies` (optional) gets the policies before the first batch.
    using BatchHandler = std::function<bool(std::vector<Subject>& batch, const SubjectsProgress&)>;
    void stream(const SubjectsOptions& options, BatchHandler onBatch,
                Callback<SubjectsProgress> done,
                std::function<void(const PolicyListing&)> onPolicies = {}) const;

    /// stream() collected into one sorted list, for small servers and tests.
    void list(const SubjectsOptions& options, Context context, Callback<SubjectList> done) const;

    /// One user's subjects without any SCAN: every action with a policy, addressed through the
    /// key schema (raw reads, or hit.lua peeks with `peek`), keeping those with state or a ban,
    /// plus a row for a user-wide ban. Instant at any size.
    void user(const QByteArray& user, bool peek, Context context,
              Callback<std::vector<Subject>> done) const;

    /// Fresh reads of the named subjects (rows on screen, subjects named by events): raw reads,
    /// or hit.lua peeks with `peek`. No SCAN.
    void read(const std::vector<SubjectKey>& keys, bool peek, Context context,
              Callback<std::vector<Subject>> done) const;

    /// The user's actions that have keys but no policy (left-overs, foreign writers): SCAN
    /// MATCH on the user's own prefix, at most `budget` keys examined.
    void foreignActions(const QByteArray& user, qint64 budget, Context context,
                        Callback<std::vector<Subject>> done) const;

    /// The SCAN pattern for the options: <p>:{<prefix>* or <p>:{<prefix>*}:<action>:*
    QByteArray pattern(const SubjectsOptions& options) const;
    /// Back-compat helper: the pattern for one action (or all).
    QByteArray pattern(const QByteArray& action) const;

private:
    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
