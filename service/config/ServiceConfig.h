#pragma once

#include "core/policies/PolicyText.h"
#include "tollgate/Policy.h"
#include "tollgate/Result.h"

#include <QByteArray>
#include <QString>
#include <optional>
#include <vector>

// tollgated's configuration: envoyproxy/ratelimit's YAML as it is (domain, descriptors with
// key/value and wildcards, nested descriptors, rate_limit {unit, requests_per_unit, name,
// unlimited, replaces}, shadow_mode, quota_mode, detailed_metric, value_to_metric,
// share_threshold, metadata), plus Tollgate's own `tollgate:` map on a descriptor.
// docs/service.md is the reference.
namespace tollgate::service {

/// Envoy's units, with Envoy's numbers (RateLimitResponse.RateLimit.Unit). A request's own limit
/// has envoy.type.v3.RateLimitUnit, which has no Week: Tollgate reads 7 there as Week
/// (tollgate.type.v1.RateLimitUnit).
enum class LimitUnit
{
    Unknown = 0,
    Second = 1,
    Minute = 2,
    Hour = 3,
    Day = 4,
    Month = 5,
    Year = 6,
    Week = 7
};

/// The unit's length as envoyproxy/ratelimit counts it (a month is 30 days, a year 365).
qint64 unitMs(LimitUnit unit);
QString unitName(LimitUnit unit); // "second", ...
std::optional<LimitUnit> unitFromName(const QString& name);
/// The unit of exactly `ms`, else Unknown.
LimitUnit unitOfWindow(qint64 ms);

struct RateLimitSpec
{
    LimitUnit unit = LimitUnit::Unknown;
    qint64 requestsPerUnit = 0;
    QString name; // rate_limit.name: what `replaces` refers to
};

/// A descriptor value with `*` anywhere: each `*` matches any run of bytes (none included).
struct ValuePattern
{
    std::vector<QByteArray> parts; // the value split at each '*'; one part: no wildcard

    bool isWildcard() const { return parts.size() > 1; }
    bool matches(const QByteArray& value) const;
};

/// One node of a domain's descriptor tree.
struct DescriptorRule
{
    QByteArray key;
    QByteArray value;     // as configured ("abc*", "/api/*/x"); empty: any value, each counted apart
    ValuePattern pattern; // the value's wildcards, when it has any
    std::optional<RateLimitSpec> rateLimit;
    bool unlimited = false;
    bool shadow = false;
    bool quotaMode = false;      // over limit alone never refuses the request (only all such do)
    bool detailedMetric = false;
    bool valueToMetric = false;  // metrics name the request's value where the rule names none
    bool shareThreshold = false; // every value the wildcard matches counts in one counter
    QByteArray metadata;         // `metadata` as compact JSON; empty: none
    std::vector<QString> replaces; // names of limits this one stands in for
    QByteArray userKey;            // tollgate.user: the entry whose value is the subject
    QByteArray action;             // the Tollgate action counting this rule's hits (when it limits)
    std::vector<DescriptorRule> children;
    QString where; // "file:line", for messages
    QByteArray name; // "<domain>.<path>", as an action is named, also when it limits nothing

    bool limits() const { return !action.isEmpty(); }
    bool wildcard() const { return pattern.isWildcard(); }
};

struct DomainConfig
{
    QByteArray domain;
    QString file;
    std::vector<DescriptorRule> rules;
};

struct ServiceConfig
{
    std::vector<DomainConfig> domains;
    std::vector<Policy> policies; // one per limiting rule, in file order
    /// Where the translation behaves differently from envoyproxy/ratelimit ("file:line: ...").
    std::vector<QString> notes;
    QByteArray digest; // sha256 (hex) of the files, in order
    std::vector<QString> files;

    const DomainConfig* domain(const QByteArray& name) const;
    const Policy* policy(const QByteArray& action) const;
};

struct ConfigFile
{
    QString path;
    QByteArray text;
};

/// Parses and translates; InvalidInput names the file, the line and the field.
Result<ServiceConfig> parseServiceConfig(const std::vector<ConfigFile>& files);
/// A file, or every *.yaml / *.yml of a directory (sorted by name), as envoyproxy/ratelimit
/// reads its runtime directory.
Result<ServiceConfig> loadServiceConfig(const QString& path);

} // namespace tollgate::service
