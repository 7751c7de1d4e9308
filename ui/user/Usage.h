#pragma once

#include "core/limits/HitResult.h"
#include "core/limits/Policy.h"

namespace tollgate::ui {

/// hit.lua's peek answers what the *next* hit would get: its count already includes that hit
/// when it would be counted. The console shows where the user stands now, so take it back out.
inline HitResult currentUsage(HitResult peek, const Policy& policy)
{
    const bool wouldCount = peek.allowed || policy.countDenied;
    if (wouldCount && peek.tier != Tier::Banned) {
        const qint64 cost = qMax<qint64>(1, policy.cost);
        peek.count = qMax<qint64>(0, peek.count - cost);
        peek.remaining = qMin(peek.limit, peek.remaining + cost);
    }
    return peek;
}

} // namespace tollgate::ui
