#pragma once

#include "core/cluster/SlotMap.h"
#include "tollgate/Client.h"

#include <optional>
#include <vector>

namespace tollgate {

/// Asks the server behind `client` what it is: INFO cluster says whether cluster mode is on;
/// then CLUSTER SHARDS (Redis 7), or CLUSTER SLOTS on servers without it, gives the slot map.
/// Delivers nullopt for a standalone server, the map for a cluster node, or the error.
/// Nodes that announce no endpoint are reached at the client's own host.
void discoverTopology(Client* client, Context context, Callback<std::optional<SlotMap>> done);

/// discoverTopology() through the first of `clients` that answers (after a failover some known
/// nodes are gone, any live one knows the whole map); the last error when none does.
void discoverTopologyFromAny(std::vector<Client*> clients, Context context,
                             Callback<std::optional<SlotMap>> done);

} // namespace tollgate
