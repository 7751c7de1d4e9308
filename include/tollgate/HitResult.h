#pragma once

// HitResult: what a hit answers (allowed, tier, count, remaining, retry-after, the ban).

#include "tollgate/Reply.h"
#include "tollgate/Result.h"

namespace tollgate {

enum class Tier
{
    Ok,
    Warn,
    Deny,
    Banned
};

QString tierName(Tier tier);

/// Which path answered a hit: Redis, the failure policy while Redis could not
/// (tollgate/Policy.h), or a refusal of Redis repeated from memory.
enum class DecidedBy
{
    Redis,
    FailOpen,
    FailClosed,
    Insurance,
    Cache // a refusal Redis gave earlier, repeated from memory until it ends (RefusalCache)
};

/// "redis", "fail_open", "fail_closed", "insurance", "cache".
QString decidedByName(DecidedBy by);

/// Which override of the user decided a hit (lua/README.md, "Overrides"; tollgate/Overrides.h).
enum class AppliedOverride
{
    None,
    Limit,    // the override's windows replaced the policy's
    Unlimited // exempt: counted, never denied, never banned automatically
};

/// "", "limit", "unlimited" (hit.lua's reply [8], the JSON of `tollgatectl hit`).
QString appliedOverrideName(AppliedOverride applied);

/// What hit.lua answers: enough for RateLimit-Limit / -Remaining / -Reset and Retry-After.
struct HitResult
{
    bool allowed = false;
    Tier tier = Tier::Ok;
    qint64 count = 0;
    qint64 limit = 0;
    qint64 remaining = 0;
    qint64 resetMs = 0;
    qint64 retryAfterMs = 0; // -1: never (permanent ban)
    QString message;         // the policy's deny message, when denied
    DecidedBy decidedBy = DecidedBy::Redis;
    // A shadow policy's hit (hit.lua mode "shadow", reply [9]): always allowed; tier, retry and
    // the rest are what enforcing would have answered, wouldBan when it would have banned.
    bool shadow = false;
    bool wouldBan = false;
    /// A shadow hit that enforcing would have denied (deny, or a ban in force).
    bool wouldDeny() const { return shadow && (tier == Tier::Deny || tier == Tier::Banned); }
    QString redisError; // when not decided by Redis: why Redis could not answer
    AppliedOverride appliedOverride = AppliedOverride::None; // reply [8] when present
    // A peek's (reply [10], [11]): count and reset of the same window as it stands, before the
    // hit it weighs; -1 when the reply is not a peek's.
    qint64 countNow = -1;
    qint64 resetNowMs = -1;

    static Result<HitResult> fromReply(const Reply& reply);
};

} // namespace tollgate
