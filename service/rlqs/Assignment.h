#pragma once

#include "service/rlqs/BucketMapping.h"
#include "service/rlqs/UsageBatch.h"

namespace tollgate::service {

/// What one proxy is told to do with one bucket (a QuotaAssignmentAction).
struct Assignment
{
    enum class Kind
    {
        AllowAll,
        DenyAll,
        TokenBucket
    };
    Kind kind = Kind::AllowAll;
    qint64 ttlMs = 0;
    // TokenBucket: starts full with maxTokens, tokensPerFill added every fillIntervalMs.
    qint64 maxTokens = 0;
    qint64 tokensPerFill = 0;
    qint64 fillIntervalMs = 0;

    /// Whether `other` may stand for this one: the same kind and, for a token bucket, a rate
    /// within 10 %. A proxy keeps its tokens when told the same strategy again (Envoy only
    /// extends the time to live), while a new bucket would start full.
    bool closeTo(const Assignment& other) const;
};

/// The assignment that keeps the global limit: DENY_ALL for as long as a ban or an exhausted
/// window lasts, ALLOW_ALL for an exempt subject, else the window's remaining spread evenly over
/// its time left and over the `proxies` reporting the bucket, as a token bucket that refills
/// about once a second and holds one fill (so a new bucket's burst is one fill).
Assignment assignmentFor(const UsageState& state, const Policy& policy, int proxies,
                         qint64 ttlMs);

} // namespace tollgate::service
