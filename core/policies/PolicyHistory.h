#pragma once

#include "core/policies/PolicyText.h"
#include "tollgate/PolicyStore.h"

#include <vector>

namespace tollgate {

/// The fields of policyToText() that differ between two revisions, in its order.
Result<std::vector<PolicyFieldChange>> diffRevisions(const PolicyHistory& history, qint64 before,
                                                     qint64 after);

} // namespace tollgate
