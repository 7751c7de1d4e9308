#pragma once

#include "core/limits/HitResult.h"
#include "core/limits/KeySchema.h"
#include "core/limits/Policy.h"
#include "core/redis/Client.h"

namespace tollgate {

/// Counts hits against a policy with hit.lua: one atomic EVALSHA per hit, whatever the
/// algorithm, so a counter can never be left without its TTL.
class Limiter
{
public:
    Limiter(Client* client, KeySchema schema);

    /// Counts one hit of `cost` units (0 = the policy's default cost).
    void hit(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
             Callback<HitResult> done) const;
    /// What a hit of `cost` would get, without counting anything (read-only).
    void peek(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
              Callback<HitResult> done) const;

    const KeySchema& schema() const { return m_schema; }

    /// Also feed the console's per-second statistics (stats.lua, one more EVALSHA per hit,
    /// sent without waiting for it). Off by default.
    void setRecordStats(bool on) { m_recordStats = on; }

private:
    void run(const QByteArray& mode, const Policy& policy, const QByteArray& user, qint64 cost,
             Context context, Callback<HitResult> done) const;

    Client* m_client;
    KeySchema m_schema;
    bool m_recordStats = false;
};

} // namespace tollgate
