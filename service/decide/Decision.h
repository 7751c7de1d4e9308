#pragma once

#include "service/config/ServiceConfig.h"
#include "tollgate/HitResult.h"
#include "tollgate/Policy.h"

#include <QByteArray>
#include <optional>
#include <vector>

// A decision request and its answer, independent of the wire (gRPC, HTTP JSON): Envoy's rate
// limit request in plain C++.
namespace tollgate::service {

struct RequestEntry
{
    QByteArray key;
    QByteArray value;
};

struct RequestDescriptor
{
    std::vector<RequestEntry> entries;
    std::optional<RateLimitSpec> limit;  // the request's own limit for this descriptor
    std::optional<quint64> hitsAddend;   // instead of the request's; 0 = check, count nothing
};

/// The limit_remaining of an `unlimited` descriptor, as envoyproxy/ratelimit answers it.
constexpr qint64 kUnlimitedRemaining = 4294967295;

struct DecisionRequest
{
    QByteArray domain;
    std::vector<RequestDescriptor> descriptors;
    quint64 hitsAddend = 0; // 0 (unset): 1
};

enum class Code
{
    Unknown = 0,
    Ok = 1,
    OverLimit = 2
};

struct DescriptorDecision
{
    Code code = Code::Ok;
    std::optional<RateLimitSpec> currentLimit; // the limit that applies; none when unmatched
    qint64 limitRemaining = 0;
    qint64 durationUntilResetMs = 0;
    QByteArray action; // empty: no Tollgate limit applied (no rule, unlimited, replaced)
    QByteArray user;
    std::optional<HitResult> hit; // what Tollgate answered, when a hit was made
    std::optional<Policy> policy; // the policy it was made with
    bool unmatched = false;
    bool quotaMode = false; // its limit applied in quota_mode (the request's code weighs it so)
    QByteArray metadata;    // the applied rule's `metadata` (compact JSON), empty: none
    /// The descriptor as metrics name it: the rule's name ("edge.remote_address"), or with the
    /// rule's detailed_metric the values too ("edge.remote_address_10.0.0.1"); empty: unmatched.
    QByteArray metricName;
};

struct Decision
{
    Code overall = Code::Ok;
    std::vector<DescriptorDecision> statuses; // one per request descriptor, in order
    /// The hit the response's RateLimit header fields describe: the most restrictive one.
    std::optional<HitResult> headline;
    std::optional<Policy> headlinePolicy;
    int redisCalls = 0; // hits that went to Redis (not answered from memory)
    /// Finished by its deadline (Decider::setDeadline): the failure policy answered what Redis
    /// had not by then.
    bool atDeadline = false;
    /// envoyproxy/ratelimit's response dynamic metadata (compact JSON: domain, descriptors,
    /// hitsAddend, the passed descriptors' metadata), when a matched rule has quota_mode or
    /// metadata; empty otherwise.
    QByteArray dynamicMetadata;
};

} // namespace tollgate::service
