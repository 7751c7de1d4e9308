#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

#include <vector>

namespace tollgate::service {

/// One bucket's usage for usage.lua (lua/README.md, "usage.lua").
struct UsageItem
{
    Policy policy; // a fixed-window policy
    QByteArray user;
    qint64 allowed = 0;
    qint64 denied = 0;
};

/// What usage.lua answers for a bucket, after its usage is counted.
struct UsageState
{
    enum class State
    {
        Ok,
        Banned,
        Exempt
    };
    State state = State::Ok;
    qint64 count = 0;
    qint64 limit = 0;
    qint64 remaining = 0;
    qint64 resetMs = 0; // 0: the window holds nothing yet
    qint64 banMs = 0;   // -1: permanent
};

/// Adds every item's usage with one usage.lua call (one per subject on a Redis Cluster, where
/// a call stays in one slot) and answers their states in the items' order. `done` runs on the
/// thread of the last reply.
void addUsage(Client* client, const KeySchema& schema, std::vector<UsageItem> items,
              Callback<std::vector<UsageState>> done);

} // namespace tollgate::service
