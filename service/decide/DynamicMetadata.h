#pragma once

#include "service/decide/Decision.h"

namespace tollgate::service {

/// The response's dynamic metadata as envoyproxy/ratelimit builds it (compact JSON, for
/// google.protobuf.Struct): {"domain", "descriptors": [{"entries": ["key=value"...], "limit"?,
/// "hitsAddend"?}], "hitsAddend"? (the request's, when not 0), "metadata"? (the `metadata` of
/// every descriptor that passed, merged: the first value of a key wins, maps merged)}.
QByteArray dynamicMetadata(const DecisionRequest& request,
                           const std::vector<DescriptorDecision>& statuses);

} // namespace tollgate::service
