#include "core/subjects/Usage.h"

#include <algorithm>

namespace tollgate {

HitResult usageFromPeek(HitResult peek, const Policy& policy)
{
    // hit.lua's peek reports the window as it stands beside what the hit would get: a hit that
    // does not fit may count less than its cost (an exempt user's, a count_denied one's), so
    // the cost cannot be taken back out of the count after it.
    if (peek.countNow >= 0) {
        peek.count = peek.countNow;
        peek.resetMs = peek.resetNowMs;
    }
    peek.countNow = peek.resetNowMs = -1; // the usage is the state now
    peek.remaining = std::max<qint64>(0, peek.limit - peek.count);
    if (peek.tier == Tier::Warn && policy.warn > 0 && peek.count <= policy.warn)
        peek.tier = Tier::Ok; // only the next hit would cross the warn level
    if (peek.allowed)
        peek.retryAfterMs = 0;
    return peek;
}

HitResult usageFromCounters(const std::vector<WindowReading>& windows, const Policy& policy,
                            bool banned)
{
    HitResult usage;
    const qint64 cost = std::max<qint64>(1, policy.cost);
    int binding = -1;
    bool denied = false;
    qint64 bindingReset = -1;
    for (size_t i = 0; i < windows.size() && i < policy.windows.size(); ++i) {
        const qint64 count = std::max<qint64>(0, windows[i].count);
        const qint64 limit = policy.windows[i].limit;
        const qint64 reset = windows[i].pttl >= 0 ? windows[i].pttl
                             : count > 0          ? policy.windows[i].windowMs // lost its TTL
                                                  : 0;
        const bool fits = count + cost <= limit;
        if (!fits) {
            // Denying windows: the one with the longest wait binds (as in hit.lua).
            if (!denied || reset > bindingReset) {
                binding = int(i);
                bindingReset = reset;
            }
            denied = true;
        } else if (!denied) {
            const qint64 left = limit - count;
            if (binding < 0 || left < usage.remaining) {
                binding = int(i);
                usage.remaining = left;
            }
        }
        if (binding == int(i)) {
            usage.count = count;
            usage.limit = limit;
            usage.resetMs = reset;
        }
    }
    usage.remaining = std::max<qint64>(0, usage.limit - usage.count);
    const qint64 first = windows.empty() ? 0 : windows.front().count;
    usage.allowed = !banned && !denied;
    usage.tier = banned                                     ? Tier::Banned
                 : denied                                   ? Tier::Deny
                 : (policy.warn > 0 && first > policy.warn) ? Tier::Warn
                                                            : Tier::Ok;
    usage.retryAfterMs =
        usage.allowed ? 0 : (cost > usage.limit ? -1 : std::max<qint64>(usage.resetMs, 1));
    if (usage.allowed)
        usage.message.clear();
    else
        usage.message = policy.message;
    return usage;
}

qint64 remainingShown(qint64 limit, qint64 count, bool banned)
{
    return banned ? 0 : std::max<qint64>(0, limit - count);
}

bool isNearLimit(const HitResult& usage)
{
    if (usage.limit <= 0 || usage.tier == Tier::Banned)
        return false;
    return usage.tier == Tier::Warn || usage.tier == Tier::Deny ||
           usage.remaining * 10 <= usage.limit;
}

double hitsPerMinute(Algorithm algorithm, const std::vector<WindowLimit>& windows, qint64 count,
                     qint64 limit, qint64 resetMs)
{
    if (algorithm == Algorithm::TokenBucket)
        return -1; // its count is the debt of the bucket, not hits in a span of time
    const auto window = std::find_if(windows.begin(), windows.end(),
                                     [limit](const WindowLimit& w) { return w.limit == limit; });
    if (window == windows.end() || window->windowMs <= 0)
        return -1;
    if (count <= 0)
        return 0;
    // A sliding window always covers its whole length; a fixed one began length - reset ago.
    const qint64 span = algorithm == Algorithm::FixedWindow
                            ? (resetMs > 0 ? window->windowMs - resetMs : 0)
                            : window->windowMs;
    return span < 1000 ? -1 : double(count) * 60'000 / double(span);
}

} // namespace tollgate
