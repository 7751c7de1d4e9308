#pragma once

#include "tollgate/HitResult.h"
#include "tollgate/Policy.h"

#include <vector>

namespace tollgate {

/// Where a subject stands now, as every view shows it (CLI, Subjects page, dashboard, user
/// detail): one rule, so no two screens disagree about one user.
///   count      what the binding window holds now (a counter above the limit, possible with
///              count_denied, is shown as it is);
///   remaining  max(0, limit - count);
///   tier       banned; else deny when the next hit of the policy's cost would be denied;
///              else warn when the first window is above the warn level; else ok;
///   resetMs    ms until the binding window holds nothing.

/// From hit.lua's peek, which answers what the *next* hit would get and, beside it, the
/// window's count and reset as they stand (reply [10], [11]): those are shown.
HitResult usageFromPeek(HitResult peek, const Policy& policy);

/// One fixed window's counter, read raw (GET + PTTL).
struct WindowReading
{
    qint64 count = 0;
    qint64 pttl = -2; // Redis' PTTL: -2 missing, -1 no TTL
};

/// From raw fixed-window counters, one per policy window in policy order (the cheap read
/// used when enumerating many subjects; hit.lua's fixed_window decides with the same numbers).
HitResult usageFromCounters(const std::vector<WindowReading>& windows, const Policy& policy,
                            bool banned);

/// Remaining as every view shows it: nothing while a ban is in force (no hit passes until it
/// ends, whatever the counter holds), else max(0, limit - count).
qint64 remainingShown(qint64 limit, qint64 count, bool banned);

/// Near the limit: warned, denied, or at most 10 % of the limit left (banned rows are not).
bool isNearLimit(const HitResult& usage);

/// Hits counted per minute, from a usage alone (no read of its own): a fixed window's count
/// over the time since the window began (the window of `windows` with the usage's limit, less
/// `resetMs`), a sliding log's or sliding window's count over the window's length. -1 when it
/// cannot tell: a token bucket, a window begun less than a second ago, no window with `limit`.
double hitsPerMinute(Algorithm algorithm, const std::vector<WindowLimit>& windows, qint64 count,
                     qint64 limit, qint64 resetMs);

} // namespace tollgate
