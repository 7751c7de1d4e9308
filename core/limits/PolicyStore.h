#pragma once

#include "core/limits/KeySchema.h"
#include "core/limits/Policy.h"
#include "core/redis/Client.h"

#include <vector>

namespace tollgate {

/// Policies in Redis (<p>:policy:<action> hashes). Saving is compare-and-set on the revision
/// (policy_set.lua): a stale revision fails with ErrorKind::Conflict, never overwrites.
class PolicyStore
{
public:
    PolicyStore(Client* client, KeySchema schema);

    /// HGETALL; NotFound when the action has no policy.
    void get(const QByteArray& action, Context context, Callback<Policy> done) const;
    /// SCAN for policy keys, then HGETALL each; sorted by action.
    void list(Context context, Callback<std::vector<Policy>> done) const;
    /// Validates, then saves if the stored revision is still policy.revision (0 = new).
    /// Delivers the new revision. Mirrors the change into the global audit stream.
    void save(const Policy& policy, const QString& actor, Context context,
              Callback<qint64> done) const;
    /// Deletes the policy if it is still at `revision`.
    void remove(const QByteArray& action, qint64 revision, const QString& actor, Context context,
                Callback<Unit> done) const;

private:
    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
