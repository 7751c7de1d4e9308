#pragma once

#include "service/decide/PolicyBook.h"
#include "service/rlqs/QuotaSettings.h"

#include <map>
#include <string>

namespace tollgate::service {

/// A quota bucket's id: Envoy's map of strings (the order of its pairs does not matter).
using BucketId = std::map<std::string, std::string>;

/// What a bucket counts against, found as a request descriptor's limit is (service/decide).
struct BucketTarget
{
    enum class Kind
    {
        AllowAll,    // no rule, an `unlimited` rule, a rule without a limit, or a shadow policy
        DenyAll,     // requests_per_unit 0
        Counted,     // a fixed-window policy: usage.lua counts it
        Unsupported, // another algorithm: no assignment (the proxy's own no-assignment behaviour)
    };
    Kind kind = Kind::AllowAll;
    Policy policy;   // Counted and Unsupported
    QByteArray user; // the subject
    bool shadow = false; // Counted, never denied: answered ALLOW_ALL
};

/// The bucket's entries as a descriptor (settings.bucketKeys' order, else the domain's tree),
/// matched and resolved to the policy in force (`policies` first, then the configuration's).
BucketTarget mapBucket(const ServiceConfig& config, const PolicyBook::Snapshot& policies,
                       const QByteArray& domain, const QuotaDomainSettings& settings,
                       const BucketId& bucket);

/// One text per bucket id, the same for the same pairs: "key=value" lines, sorted, with '\n',
/// '=' and '\' escaped.
QByteArray bucketIdText(const BucketId& bucket);

} // namespace tollgate::service
