#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <chrono>

// bench_hit's refusals: what a refused hit costs the server next to an allowed one, per
// algorithm, under the same load in the same run: refused by the window (limit 1 per hour,
// nothing counted), by a ban in force (an action ban of every user, a policy every hit would
// pass), and a shadow policy's would-deny (limit 1 per hour, shadow).
namespace tollgate::bench {

struct RefusalTableOptions
{
    qint64 users = 1000;
    int rounds = 2;
    std::chrono::seconds seconds{3};
};

/// Runs and prints the table.
void runRefusalTable(tollgate::Client& admin, const tollgate::ConnectionOptions& options,
                     const tollgate::KeySchema& schema, const RefusalTableOptions& table);

} // namespace tollgate::bench
