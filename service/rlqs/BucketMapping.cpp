#include "service/rlqs/BucketMapping.h"

#include "service/decide/DescriptorMatch.h"

namespace tollgate::service {

namespace {

QByteArray escaped(const std::string& text)
{
    QByteArray out;
    for (const char c : text) {
        if (c == '\n' || c == '=' || c == '\\')
            out += '\\';
        out += c == '\n' ? 'n' : c;
    }
    return out;
}

// The keys a bucket holds, level by level down the domain's tree: at each level the first rule
// (in file order) whose key the bucket has.
std::vector<QByteArray> keysByTree(const DomainConfig& domain, const BucketId& bucket)
{
    std::vector<QByteArray> keys;
    const std::vector<DescriptorRule>* level = &domain.rules;
    while (level && !level->empty()) {
        const DescriptorRule* next = nullptr;
        for (const DescriptorRule& rule : *level) {
            const auto value = bucket.find(rule.key.toStdString());
            if (value == bucket.end())
                continue;
            const QByteArray text = QByteArray::fromStdString(value->second);
            const bool fits = rule.value.isEmpty() ||
                              (rule.wildcard() ? rule.pattern.matches(text) : text == rule.value);
            if (fits) {
                next = &rule;
                break;
            }
        }
        if (!next)
            break;
        keys.push_back(next->key);
        level = &next->children;
    }
    return keys;
}

} // namespace

QByteArray bucketIdText(const BucketId& bucket)
{
    QByteArray text;
    for (const auto& [key, value] : bucket) // std::map: sorted by key
        text += escaped(key) + '=' + escaped(value) + '\n';
    return text;
}

BucketTarget mapBucket(const ServiceConfig& config, const PolicyBook::Snapshot& policies,
                       const QByteArray& domainName, const QuotaDomainSettings& settings,
                       const BucketId& bucket)
{
    BucketTarget target;
    const DomainConfig* domain = config.domain(domainName);
    if (!domain)
        return target; // an unknown domain limits nothing, as over RLS
    RequestDescriptor descriptor;
    const std::vector<QByteArray> keys =
        settings.bucketKeys.empty() ? keysByTree(*domain, bucket) : settings.bucketKeys;
    for (const QByteArray& key : keys) {
        const auto value = bucket.find(key.toStdString());
        if (value != bucket.end())
            descriptor.entries.push_back({key, QByteArray::fromStdString(value->second)});
    }
    if (descriptor.entries.empty())
        return target;
    const DescriptorMatch match = matchDescriptor(*domain, descriptor);
    const DescriptorRule* rule = match.rule;
    if (!rule || rule->unlimited || !rule->limits())
        return target;
    if (rule->rateLimit && rule->rateLimit->requestsPerUnit == 0 && !rule->shadow) {
        target.kind = BucketTarget::Kind::DenyAll;
        return target;
    }
    const auto stored = policies->constFind(rule->action);
    const Policy* configured = config.policy(rule->action);
    if (stored == policies->cend() && !configured)
        return target;
    target.policy = stored != policies->cend() ? *stored : *configured;
    target.user = match.user;
    target.shadow = target.policy.shadow;
    target.kind = target.policy.algorithm == Algorithm::FixedWindow ? BucketTarget::Kind::Counted
                                                                    : BucketTarget::Kind::Unsupported;
    return target;
}

} // namespace tollgate::service
