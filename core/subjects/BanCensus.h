#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Subjects.h"

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace tollgate {

/// One ban key and when it ends.
struct BanEnd
{
    QByteArray user;
    QByteArray action; // empty: the user-wide ban <p>:{<user>}:ban
    qint64 endMs = -1; // the key's PEXPIRETIME: -1 permanent, -2 gone
};

struct BanCensusResult
{
    std::vector<BanEnd> bans; // each ban key once, in SCAN order
    qint64 keysScanned = 0;   // ban keys SCAN returned (duplicates included)
};

/// Counts the bans in force without reading any subject: bans are keys of their own, so a
/// client-side SCAN MATCH <p>:{*:ban TYPE hash (COUNT 1000 per call, paced) finds them, and one
/// pipelined PEXPIRETIME per ban key says when each ends. A million subjects with 1 % banned
/// cost ~1,000 SCAN calls and 10,000 PEXPIRETIME, not a read per subject. On a cluster every
/// primary is scanned.
class BanCensus
{
public:
    BanCensus(Client* client, KeySchema schema);

    /// One pass. `pause` between SCAN calls bounds its load; setting `*cancelled` stops it
    /// (done then gets what was found so far).
    void run(std::chrono::milliseconds pause, std::shared_ptr<std::atomic<bool>> cancelled,
             Context context, Callback<BanCensusResult> done) const;

    /// The ends of named bans (a ban or unban event): one PEXPIRETIME each, endMs -2 when the
    /// ban is gone. An empty action in `bans` is the user-wide ban.
    void read(const std::vector<SubjectKey>& bans, Context context,
              Callback<std::vector<BanEnd>> done) const;

    /// The SCAN pattern: <p>:{*:ban
    QByteArray pattern() const;

private:
    Client* m_client;
    KeySchema m_schema;
};

/// The bans in force per action, exact between census passes as far as their ends are known:
/// a ban whose end has passed stops counting at that millisecond of the server's clock, and
/// bans named by events are added or removed at once. count() is O(log n) after the first
/// call of a millisecond: expired ends leave a sorted set from its front.
class ActiveBans
{
public:
    /// Replaces everything with a census pass.
    void replace(const std::vector<BanEnd>& bans);
    /// One ban's fresh end (endMs -2: lifted or gone).
    void apply(const BanEnd& ban);
    /// Bans in force at `nowMs` (server epoch ms) of `action`; the empty action counts the
    /// user-wide bans.
    qint64 count(const QByteArray& action, qint64 nowMs);
    /// Every action with a ban known, user-wide ("") included.
    std::vector<QByteArray> actions() const;

private:
    struct PerAction
    {
        std::map<QByteArray, qint64> users; // user -> end (-1 permanent)
        std::multiset<qint64> ends;         // timed ends still in force at `prunedTo`
        qint64 permanent = 0;
        qint64 prunedTo = 0; // ends at or before this left `ends`
    };
    void remove(PerAction& entry, const QByteArray& user);

    std::map<QByteArray, PerAction> m_actions;
};

} // namespace tollgate
