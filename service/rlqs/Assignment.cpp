#include "service/rlqs/Assignment.h"

#include <algorithm>
#include <cmath>

namespace tollgate::service {

bool Assignment::closeTo(const Assignment& other) const
{
    if (kind != other.kind)
        return false;
    if (kind != Kind::TokenBucket)
        return true;
    const double rate = double(tokensPerFill) / double(fillIntervalMs);
    const double otherRate = double(other.tokensPerFill) / double(other.fillIntervalMs);
    return std::abs(rate - otherRate) <= 0.1 * rate;
}

Assignment assignmentFor(const UsageState& state, const Policy& policy, int proxies, qint64 ttlMs)
{
    Assignment out;
    out.ttlMs = ttlMs;
    if (state.state == UsageState::State::Banned) {
        out.kind = Assignment::Kind::DenyAll;
        if (state.banMs > 0) // a permanent ban: the default time to live; an unban is pushed
            out.ttlMs = state.banMs;
        return out;
    }
    if (state.state == UsageState::State::Exempt)
        return out;
    // The binding window's length: the one whose limit usage.lua reported.
    qint64 windowMs = policy.windows.empty() ? 1000 : policy.windows.front().windowMs;
    for (const WindowLimit& w : policy.windows) {
        if (w.limit == state.limit) {
            windowMs = w.windowMs;
            break;
        }
    }
    const qint64 leftMs = state.resetMs > 0 ? state.resetMs : windowMs;
    if (state.remaining <= 0) {
        out.kind = Assignment::Kind::DenyAll;
        out.ttlMs = leftMs;
        return out;
    }
    const double share = double(state.remaining) / double(std::max(proxies, 1));
    const double perMs = share / double(leftMs);
    // A whole number of tokens a fill, at least a second apart, at exactly the share's rate.
    out.kind = Assignment::Kind::TokenBucket;
    out.tokensPerFill = std::clamp<qint64>(qint64(std::ceil(perMs * 1000.0)), 1, UINT32_MAX);
    out.fillIntervalMs = std::clamp<qint64>(qint64(std::llround(double(out.tokensPerFill) / perMs)),
                                            1000, std::max<qint64>(leftMs, 1000));
    out.maxTokens = out.tokensPerFill;
    return out;
}

} // namespace tollgate::service
