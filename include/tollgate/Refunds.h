#pragma once

// Refunds: gives back the units of a hit, or charges extra ones (penalties).

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

namespace tollgate {

/// What refund.lua answers (lua/README.md, "refund.lua"): the state after the call of the
/// window with the smallest remaining, as a hit reports it.
struct RefundResult
{
    bool changed = false;    // false: nothing was written (a refund of empty windows)
    bool banCreated = false; // a penalty crossed a limit of a policy that bans
    qint64 count = 0;
    qint64 limit = 0;
    qint64 remaining = 0;
    qint64 resetMs = 0;
    qint64 banUntilMs = 0; // the end of the ban created, epoch ms; 0 = none

    static Result<RefundResult> fromReply(const Reply& reply);
};

/// Refunds and penalties against a policy with refund.lua, one atomic EVALSHA over every
/// window of the policy, with the keys and arguments of hit.lua's full form.
class Refunds
{
public:
    Refunds(Client* client, KeySchema schema);

    /// Gives back `cost` units (0 = the policy's cost) in every window: never below empty,
    /// never a longer TTL (SET/HSET ... KEEPTTL, ZREMRANGEBYRANK).
    void refund(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
                Callback<RefundResult> done) const;
    /// Counts `cost` more units in every window, past the limit too; creates the policy's ban
    /// (audited as an automatic one, by `actor` with `reason`) when a hit of that cost would
    /// have been denied. Actor and reason are required.
    void penalize(const Policy& policy, const QByteArray& user, qint64 cost, const QString& actor,
                  const QString& reason, Context context, Callback<RefundResult> done) const;

private:
    void run(const QByteArray& mode, const Policy& policy, const QByteArray& user, qint64 cost,
             const QString& actor, const QString& reason, Context context,
             Callback<RefundResult> done) const;

    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
