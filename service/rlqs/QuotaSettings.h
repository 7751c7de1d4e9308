#pragma once

#include "service/config/ServiceConfig.h"
#include "tollgate/Result.h"

#include <QByteArray>
#include <map>
#include <vector>

// A domain file's `rate_limit_quota:` section (docs/service.md, "Quota streaming"): how the
// quota buckets of Envoy's rate_limit_quota filter map to the domain's descriptors, and how
// long assignments and idle buckets live.
namespace tollgate::service {

struct QuotaDomainSettings
{
    /// The bucket id entries that form the descriptor, in this order (those a bucket lacks are
    /// left out). Empty: the descriptor tree is walked, at each level the first rule whose key
    /// the bucket has.
    std::vector<QByteArray> bucketKeys;
    qint64 assignmentTtlMs = 60'000; // a token bucket or ALLOW_ALL holds this long without news
    qint64 abandonAfterMs = 120'000; // a bucket without requests this long is abandoned
};

/// Every domain's settings; a domain without the section gets the defaults. InvalidInput names
/// the file, the line and the field.
Result<std::map<QByteArray, QuotaDomainSettings>> loadQuotaSettings(const ServiceConfig& config);

} // namespace tollgate::service
