#include "tollgate/HitResult.h"

namespace tollgate {

QString tierName(Tier tier)
{
    switch (tier) {
    case Tier::Ok: return QStringLiteral("ok");
    case Tier::Warn: return QStringLiteral("warn");
    case Tier::Deny: return QStringLiteral("deny");
    case Tier::Banned: return QStringLiteral("banned");
    }
    return {};
}

QString decidedByName(DecidedBy by)
{
    switch (by) {
    case DecidedBy::Redis:
        return QStringLiteral("redis");
    case DecidedBy::FailOpen:
        return QStringLiteral("fail_open");
    case DecidedBy::FailClosed:
        return QStringLiteral("fail_closed");
    case DecidedBy::Insurance:
        return QStringLiteral("insurance");
    case DecidedBy::Cache:
        return QStringLiteral("cache");
    }
    return {};
}

Result<HitResult> HitResult::fromReply(const Reply& reply)
{
    const auto malformed = [] {
        return Result<HitResult>(ErrorKind::Protocol, QStringLiteral("malformed reply from hit.lua"));
    };
    if (!reply.isArray() || reply.elements.size() < 7)
        return malformed();
    HitResult hit;
    const QByteArray tier = reply.elements[1].toBytes();
    if (tier == "ok")
        hit.tier = Tier::Ok;
    else if (tier == "warn")
        hit.tier = Tier::Warn;
    else if (tier == "deny")
        hit.tier = Tier::Deny;
    else if (tier == "banned")
        hit.tier = Tier::Banned;
    else
        return malformed();
    qint64* fields[] = {&hit.count, &hit.limit, &hit.remaining, &hit.resetMs, &hit.retryAfterMs};
    for (int i = 0; i < 5; ++i) {
        auto value = reply.elements[static_cast<size_t>(i + 2)].toInteger();
        if (!value)
            return malformed();
        *fields[i] = *value;
    }
    auto allowed = reply.elements[0].toInteger();
    if (!allowed)
        return malformed();
    hit.allowed = *allowed == 1;
    // The long form (lua/README.md): [8] the override that decided, [9] shadow 0 | 1 | 2.
    if (reply.elements.size() >= 9) {
        const QByteArray applied = reply.elements[7].toBytes();
        if (applied == "limit")
            hit.appliedOverride = AppliedOverride::Limit;
        else if (applied == "unlimited")
            hit.appliedOverride = AppliedOverride::Unlimited;
        else if (!applied.isEmpty())
            return malformed();
        auto shadow = reply.elements[8].toInteger();
        if (!shadow || *shadow < 0 || *shadow > 2)
            return malformed();
        hit.shadow = *shadow > 0;
        hit.wouldBan = *shadow == 2;
    }
    // A peek's: [10], [11] the window before the hit.
    if (reply.elements.size() >= 11) {
        auto count = reply.elements[9].toInteger();
        auto reset = reply.elements[10].toInteger();
        if (!count || !reset || *count < 0 || *reset < 0)
            return malformed();
        hit.countNow = *count;
        hit.resetNowMs = *reset;
    }
    return hit;
}

QString appliedOverrideName(AppliedOverride applied)
{
    switch (applied) {
    case AppliedOverride::None: return {};
    case AppliedOverride::Limit: return QStringLiteral("limit");
    case AppliedOverride::Unlimited: return QStringLiteral("unlimited");
    }
    return {};
}

} // namespace tollgate
