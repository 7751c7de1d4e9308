#pragma once

#include "tollgate/Policy.h"

#include <QByteArray>
#include <QString>
#include <map>
#include <optional>
#include <vector>

namespace tollgate {

/// One action's running totals in its stats hash (lua/stats.lua, "total:*" fields): what every
/// client that records statistics has written, so every exporter reads the same numbers.
struct ActionTotals
{
    QByteArray action;                                             // "*": user-wide bans only
    qint64 hits = 0, cost = 0, warned = 0, denied = 0, banned = 0; // denied: deny + banned
    qint64 autoBans = 0, manualBans = 0;
    qint64 wouldDeny = 0, wouldBan = 0; // shadow policies' hits: allowed, counted here too

    qint64 allowed() const { return hits - warned - denied; }
};

/// What the background scan (KeyCensus) found in its last complete pass over <p>:*.
struct CensusResult
{
    qint64 keysScanned = 0;
    qint64 keysWithoutTtl = 0;             // keys of ours that need a TTL and have none
    std::map<QByteArray, qint64> subjects; // per action: distinct users with state or a ban
    std::map<std::pair<QByteArray, QByteArray>, qint64> activeBans; // (action, scope) -> bans
    qint64 finishedMs = 0; // epoch ms at the end of the pass
    double durationSeconds = 0;
};

/// Everything one exposition shows. Filled by ScrapeCollector (per scrape, O(actions)) and
/// the last CensusResult; rendered by Exposition.
struct MetricsSnapshot
{
    bool redisUp = false;
    std::vector<Policy> policies;
    std::vector<ActionTotals> totals;
    std::optional<CensusResult> census; // none until the first pass completes
    qint64 censusPasses = 0;            // completed passes since the exporter started
    qint64 nowMs = 0;                   // when the snapshot was taken (census age)
    double scrapeSeconds = 0;           // how long collecting this snapshot took
    qint64 scrapeCommands = 0;          // Redis commands it sent
    std::map<QString, qint64> errors;   // since start, by kind (errorKindName, or "corrupt_stats")
};

} // namespace tollgate
