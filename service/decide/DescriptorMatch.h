#pragma once

#include "service/decide/Decision.h"

namespace tollgate::service {

struct DescriptorMatch
{
    const DescriptorRule* rule = nullptr; // the node the descriptor ends on; null: no rule
    QByteArray user;                      // the subject the rule counts
    QByteArray path;        // "key_value.key_value": every value, for detailed_metric
    QByteArray metricPath;  // "key_value.key": the values the rules name (value_to_metric's too)
};

/// Walks `domain`'s tree with the descriptor's entries, one level per entry, as
/// envoyproxy/ratelimit does: an exact key and value first, then a value with wildcards
/// (`abc*`, `/api/*/x`; the first in the file's order that matches), then the key alone (any
/// value). The descriptor matches the node its last entry reaches. The subject is the value of
/// the rule's `tollgate.user` entry, else the values of the entries matched by key alone or by a
/// wildcard (the pattern itself for a share_threshold one), joined by '|' ('|' and '\' escaped
/// with '\'), else "*"
/// (one counter for everyone). A subject longer than an id may be (1024 bytes) is counted as
/// "sha256:<hex of it>".
DescriptorMatch matchDescriptor(const DomainConfig& domain, const RequestDescriptor& descriptor);

/// Every entry's value joined (and bounded) as matchDescriptor() joins the variable ones: the
/// subject of a limit sent with a request that no rule configures.
QByteArray subjectOfValues(const RequestDescriptor& descriptor);

} // namespace tollgate::service
