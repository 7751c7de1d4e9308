#pragma once

#include "tollgate/HitResult.h"

#include <QByteArray>
#include <QVector>
#include <vector>

namespace tollgate::ui {

/// What the charts span, from stats.lua's history: per second over the last 5 minutes, per
/// minute over the last hour or the last day.
enum class ChartRange
{
    FiveMinutes,
    Hour,
    Day
};

struct RangeShape
{
    int points;        // points on the chart, the newest whole second or minute last
    int bucketSeconds; // 1: per second, 60: per minute
    int ringSlots;     // slots of the ring read: 300 seconds or 1,440 minutes
    char ring;         // the ring's field prefix: 's' (seconds) or 'm' (minutes)
};
RangeShape shapeOf(ChartRange range);

/// One action's figures over the chosen range, oldest first (one value per bucket), the last
/// whole second's rates, and its bans in force.
struct ActionStats
{
    QByteArray action;
    int bucketSeconds = 1;
    // Per bucket; NaN where Redis was not responding and counted nothing (a gap, not a 0).
    QVector<double> hits;    // hits per bucket (every outcome)
    QVector<double> denials; // deny + banned
    QVector<double> warns;
    QVector<double> banned;
    QVector<double> wouldDenials; // a shadow policy's hits enforcing would have denied
    double nowHits = 0, nowDenials = 0, nowWarns = 0; // the last whole second
    double nowWouldDenials = 0;
    bool shadow = false;    // the policy counts and reports, never denies
    qint64 activeBans = 0;  // exact (BanCounter); 0 for a shadow policy, which bans nobody
    qint64 ignoredBans = 0; // a shadow policy's ban keys, left from when it enforced

    double lastHits() const { return nowHits; }
    double lastDenials() const { return nowDenials; }
};

/// From INFO stats / memory / clients.
struct ServerStats
{
    bool valid = false;
    qint64 opsPerSec = 0;
    qint64 usedMemory = 0; // bytes
    qint64 connectedClients = 0;
};

/// A subject close to or over its limit, as the core reads it (Usage.h).
struct NearLimitEntry
{
    QByteArray user;
    QByteArray action;
    HitResult state;
    qint64 bannedSinceMs = 0; // when the ban in force began (epoch ms); 0: not banned
    double perMinute = -1;    // hits counted per minute (hitsPerMinute); -1: unknown

    /// Its next hit is refused: banned, or denied by an enforced policy.
    bool deniedNow() const
    {
        return state.tier == Tier::Banned || (state.tier == Tier::Deny && !state.shadow);
    }
};

} // namespace tollgate::ui
