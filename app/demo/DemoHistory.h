#pragma once

#include "core/client/Client.h"
#include "core/keys/KeySchema.h"
#include "core/policies/Policy.h"

#include <vector>

namespace tollgate {

/// The demo's past: a day of simulated per-minute figures and 5 minutes of per-second ones for
/// each action (a daily swell, a burst of denials an hour ago), written into stats.lua's
/// history fields with HSETNX so no figure a real client wrote is replaced. Every chart range
/// has a shape from the first second. One pipeline; `done` runs on the client's worker thread.
void seedDemoHistory(Client* client, const KeySchema& schema, const std::vector<Policy>& policies,
                     std::function<void()> done = {});

} // namespace tollgate
