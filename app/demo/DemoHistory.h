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
/// that ends at today's level now, with a burst of denials an hour ago, and the second and
/// minute under way get their share so far: the charts run on without a step where the live
/// traffic takes over. One pipeline; `done` runs on the client's worker thread.
void seedDemoHistory(Client* client, const KeySchema& schema, const std::vector<Policy>& policies,
                     const std::map<QByteArray, DemoRate>& rates, std::function<void()> done = {});

} // namespace tollgate
