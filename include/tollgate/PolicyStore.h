#pragma once

// PolicyStore: reads and saves policies (compare-and-set on their revision) and their history.

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

#include <vector>

namespace tollgate {

class KeyLayout;

/// One revision of a policy as the scripts stored it: the whole hash, the client's fields and
/// the server-owned revision, updated_by, updated_ms and updated_reason (lua/README.md, "Policy
/// history"). Fields this version does not know (a newer client's) are kept as they are.
struct PolicyRevision
{
    qint64 revision = 0;
    QString updatedBy;
    qint64 updatedMs = 0;
    QString reason; // the audit reason of the save, rollback or restore that wrote it
    QList<QPair<QByteArray, QByteArray>> fields;

    static PolicyRevision fromFields(const QList<QPair<QByteArray, QByteArray>>& fields);
    /// The policy these fields describe (Policy::fromFields, whatever contract wrote them), or
    /// WrongType naming the revision when they describe none.
    Result<Policy> policy(const QByteArray& action) const;
};

/// Whether the scripts own the policy-hash field `name` (revision, updated_by, updated_ms,
/// updated_reason, contract): a client never gives it, a rollback never copies it.
bool isScriptOwnedField(const QByteArray& name);

/// What `policy history` shows: the stored revision, if any, and the earlier ones the history
/// stream keeps, newest first.
struct PolicyHistory
{
    QByteArray action;
    std::optional<PolicyRevision> current; // none: the policy was deleted
    std::vector<PolicyRevision> earlier;   // newest first; at most the newest 100

    bool deleted() const { return !current.has_value(); }
    /// The revision numbered `revision`, the current one included; nullptr when none.
    const PolicyRevision* find(qint64 revision) const;
    /// NotFound that says whether `revision` never existed or was pruned from the history.
    Error missing(qint64 revision) const;
    /// The policy of `revision`, or NotFound / WrongType saying why there is none.
    Result<Policy> policyAt(qint64 revision) const;
};

/// A policy hash that does not hold a valid policy (edited by hand, or by an older version).
struct InvalidPolicy
{
    QByteArray action;
    QString reason; // names the key and what is wrong
};

/// Every stored policy: the valid ones sorted by action, and the invalid ones with why.
struct PolicyListing
{
    std::vector<Policy> policies;
    std::vector<InvalidPolicy> invalid;
};

/// Policies in Redis (<p>:policy:<action> hashes; <p>:{:}:policy:<action> on a cluster). Saving is
/// compare-and-set on the revision (policy_set.lua): a stale revision fails with
/// ErrorKind::Conflict, never overwrites. Every save and delete keeps the revision it replaces
/// in the policy's history (<p>:policy:<action>:history, the newest 100).
class PolicyStore
{
public:
    PolicyStore(Client* client, KeySchema schema);

    /// HGETALL; NotFound when the action has no policy, WrongType (naming the key and the
    /// reason) when the stored hash is not a valid policy.
    void get(const QByteArray& action, Context context, Callback<Policy> done) const;
    /// SMEMBERS of the index (<p>:policies), then the hashes in one pipeline; no SCAN. When
    /// the index is missing (deleted by hand, or written by an older version) the policies
    /// are found by SCAN and the index rebuilt (when this user may write).
    void listAll(Context context, Callback<PolicyListing> done) const;
    /// The valid policies of listAll(), sorted by action.
    void list(Context context, Callback<std::vector<Policy>> done) const;
    /// Rebuilds the index: SCAN MATCH <p>:policy:* TYPE hash (COUNT 1000), then
    /// policy_reindex.lua with what was found and what the index named. Delivers the number of
    /// policies indexed.
    void reindex(Context context, Callback<qint64> done) const;
    /// Validates, then saves if the stored revision is still policy.revision (0 = new).
    /// Delivers the new revision. Mirrors the change into the global audit stream.
    void save(const Policy& policy, const QString& actor, Context context,
              Callback<qint64> done) const;
    /// The same with the operator's reason, written into the audit entry before the summary.
    void save(const Policy& policy, const QString& actor, const QString& reason, Context context,
              Callback<qint64> done) const;
    /// Deletes the policy if it is still at `revision`.
    void remove(const QByteArray& action, qint64 revision, const QString& actor, Context context,
                Callback<Unit> done) const;
    /// The same with the operator's reason, written into the audit entry.
    void remove(const QByteArray& action, qint64 revision, const QString& actor,
                const QString& reason, Context context, Callback<Unit> done) const;

    /// HGETALL of the policy and XREVRANGE of its history in one pipeline. NotFound when the
    /// action has neither (never saved, or its history was deleted by hand).
    void history(const QByteArray& action, Context context, Callback<PolicyHistory> done) const;
    /// Puts revision `toRevision` back as a new revision if the stored one is still
    /// `fromRevision` (policy_restore.lua, audited "rollback" with the reason). Delivers the new
    /// revision; NotFound for a revision the history does not hold.
    void rollback(const QByteArray& action, qint64 fromRevision, qint64 toRevision,
                  const QString& actor, const QString& reason, Context context,
                  Callback<qint64> done) const;
    /// Brings a deleted policy back at revision `toRevision` of its history (0 = the revision
    /// that was deleted), audited "restore"; Conflict if a policy is stored.
    void restore(const QByteArray& action, qint64 toRevision, const QString& actor,
                 const QString& reason, Context context, Callback<qint64> done) const;

private:
    /// The keys of policy_set.lua, policy_delete.lua and policy_restore.lua: the hash, its audit
    /// stream, the index and the history (one slot on a cluster, so the change stays atomic
    /// with its audit entry).
    static Command scriptKeys(const KeyLayout& layout, const QByteArray& action);
    /// policy_restore.lua: revision `toRevision` back, if the stored one is `expectedRevision`.
    void restoreRevision(const QByteArray& action, qint64 expectedRevision, qint64 toRevision,
                         const QString& actor, const QString& reason, Context context,
                         Callback<qint64> done) const;
    /// Runs `call` with a copy of this store and the server's key layout (KeyLayout::of).
    void withLayout(std::function<void(const PolicyStore&, const KeyLayout&)> call) const;
    void scanPolicyKeys(const KeyLayout& layout, Callback<QList<QByteArray>> done) const;
    /// policy_reindex.lua over the keys found by SCAN and those the index named.
    void writeIndex(const KeyLayout& layout, const QList<QByteArray>& found,
                    const QList<QByteArray>& indexed, Callback<qint64> done) const;

    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
