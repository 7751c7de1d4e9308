#include "service/decide/DescriptorMatch.h"

#include "tollgate/KeySchema.h"

#include <QCryptographicHash>

namespace tollgate::service {

namespace {

const DescriptorRule* find(const std::vector<DescriptorRule>& level, const RequestEntry& entry)
{
    const DescriptorRule* wildcard = nullptr;
    const DescriptorRule* anyValue = nullptr;
    for (const DescriptorRule& rule : level) {
        if (rule.key != entry.key)
            continue;
        if (rule.wildcard()) {
            if (!wildcard && rule.pattern.matches(entry.value))
                wildcard = &rule;
        } else if (rule.value.isEmpty()) {
            anyValue = anyValue ? anyValue : &rule;
        } else if (rule.value == entry.value) {
            return &rule;
        }
    }
    return wildcard ? wildcard : anyValue;
}

void appendSegment(QByteArray& path, const QByteArray& key, const QByteArray& value)
{
    if (!path.isEmpty())
        path.append('.');
    path.append(key);
    if (!value.isEmpty())
        path.append('_' + value);
}

void appendEscaped(QByteArray& out, const QByteArray& value)
{
    for (char c : value) {
        if (c == '|' || c == '\\')
            out.append('\\');
        out.append(c);
    }
}

// The subject as a key may hold it: never empty, at most an id's length.
QByteArray boundedSubject(QByteArray user)
{
    if (user.isEmpty())
        return QByteArray("\"\""); // an id may not be empty; an empty value is still one
    if (user.size() > KeySchema::kMaxIdBytes)
        return "sha256:" + QCryptographicHash::hash(user, QCryptographicHash::Sha256).toHex();
    return user;
}

} // namespace

QByteArray subjectOfValues(const RequestDescriptor& descriptor)
{
    QByteArray user;
    for (size_t i = 0; i < descriptor.entries.size(); ++i) {
        if (i > 0)
            user.append('|');
        appendEscaped(user, descriptor.entries[i].value);
    }
    return boundedSubject(user);
}

DescriptorMatch matchDescriptor(const DomainConfig& domain, const RequestDescriptor& descriptor)
{
    DescriptorMatch match;
    if (descriptor.entries.empty())
        return match;
    const std::vector<DescriptorRule>* level = &domain.rules;
    const DescriptorRule* node = nullptr;
    QByteArray variable;
    bool anyVariable = false;
    for (const RequestEntry& entry : descriptor.entries) {
        node = find(*level, entry);
        if (!node)
            return {};
        // share_threshold: every value the pattern matches is one subject, the pattern.
        const QByteArray& counted = node->shareThreshold ? node->value : entry.value;
        if (node->wildcard() || node->value.isEmpty()) {
            if (anyVariable)
                variable.append('|');
            appendEscaped(variable, counted);
            anyVariable = true;
        }
        if (!match.path.isEmpty())
            match.path.append('.');
        match.path.append(entry.key + '_' + counted);
        // value_to_metric names the request's value where the rule names none (or a pattern).
        const bool requestValue = node->valueToMetric && !node->shareThreshold;
        appendSegment(match.metricPath, entry.key, requestValue ? entry.value : node->value);
        level = &node->children;
    }
    match.rule = node;
    match.user = anyVariable ? variable : QByteArray("*");
    if (!node->userKey.isEmpty()) {
        for (const RequestEntry& entry : descriptor.entries) {
            if (entry.key == node->userKey)
                match.user = entry.value;
        }
    }
    match.user = boundedSubject(match.user);
    return match;
}

} // namespace tollgate::service
