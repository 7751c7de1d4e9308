#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

#include <map>
#include <vector>

namespace tollgate {

/// What the live demo sends of one action each second once it runs: hits, and of those the
/// ones denied (on a shadow policy: the ones enforcing it would deny).
struct DemoRate
{
    double hits = 0;
    double denied = 0;
};

/// The demo's past: a day of simulated per-minute figures and 5 minutes of per-second ones for
/// each action, written into stats.lua's history fields with HSETNX so no figure a real client
/// wrote is replaced. The figures follow `rates` (the live traffic's) through a daily swell
/// that ends at today's level now, with a burst of denials an hour ago; the second under way
/// is written whole and the minute under way gets its share up to that second's end, so the
/// live traffic, begun with the next second, runs on without a step. One pipeline; `done` runs
/// on the client's worker thread with the ms until that next second by the server's clock
/// (negative: it began that long ago; 0 when TIME failed).
void seedDemoHistory(Client* client, const KeySchema& schema, const std::vector<Policy>& policies,
                     const std::map<QByteArray, DemoRate>& rates,
                     std::function<void(int untilNextSecondMs)> done = {});

} // namespace tollgate
