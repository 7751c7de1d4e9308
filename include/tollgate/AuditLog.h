#pragma once

// AuditLog: a user's or the global audit trail; notes added by hand.

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <vector>

namespace tollgate {

class KeyLayout;

/// One entry of an audit stream (per-user <p>:{<user>}:audit or global <p>:audit).
struct AuditEntry
{
    QByteArray id;     // stream id "<ms>-<seq>"
    qint64 timeMs = 0; // from the id
    QString event;     // ban, unban, reset, warn, auto_ban, policy, policy_delete, repair, ...
    QByteArray user;
    QByteArray action;
    QString actor;
    QString reason;
    qint64 untilMs = 0;
    QString detail;

    static AuditEntry fromStreamEntry(const Reply& entry);
    /// Stream ids in order: by time, then sequence.
    bool newerThan(const AuditEntry& other) const;
};

/// Reads the audit streams. The write scripts (ban, unban, reset, policy_set, policy_delete and
/// hit.lua's automatic ban) append their per-user and global entries themselves, atomically with
/// the change; record() is for console actions that are not such a script.
class AuditLog
{
public:
    static constexpr int kGlobalMaxLen = 100'000;

    AuditLog(Client* client, KeySchema schema);

    /// Newest first (XREVRANGE ... COUNT). Empty user = the global stream (on a Redis Cluster
    /// the {:} stream: policy changes and console notes only; see README "Redis Cluster").
    void latest(const QByteArray& user, int count, Context context,
                Callback<std::vector<AuditEntry>> done) const;
    /// Entries after `afterId`, oldest first (XRANGE (id + COUNT): for live views.
    void newer(const QByteArray& user, const QByteArray& afterId, int count, Context context,
               Callback<std::vector<AuditEntry>> done) const;
    /// XADD to the global stream (capped with MAXLEN ~); on a cluster the {:} stream.
    void record(const AuditEntry& entry, Context context, Callback<Unit> done) const;

private:
    static QByteArray streamKey(const KeyLayout& layout, const QByteArray& user);
    /// `command` without its key, which goes in second place once the layout is known.
    void range(const QByteArray& user, Command command, Context context,
               Callback<std::vector<AuditEntry>> done) const;
    static void readEntries(Client* client, const Command& command, Context context,
                            Callback<std::vector<AuditEntry>> done);

    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
