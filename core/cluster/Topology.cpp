#include "core/cluster/Topology.h"

namespace tollgate {

namespace {

using Done = Callback<std::optional<SlotMap>>;

void readSlots(Client* client, const QString& host, const Context& context, const Done& done)
{
    client->execute({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("SLOTS")}, nullptr,
                    [host, context, done](Result<Reply> reply) {
                        if (!reply) {
                            deliver(context, done, Result<std::optional<SlotMap>>(reply.error()));
                            return;
                        }
                        auto map = SlotMap::fromSlots(*reply, host);
                        deliver(context, done,
                                map ? Result<std::optional<SlotMap>>(std::optional(*map))
                                    : Result<std::optional<SlotMap>>(map.error()));
                    });
}

} // namespace

void discoverTopology(Client* client, Context context, Callback<std::optional<SlotMap>> done)
{
    const QString host = client->options().host;
    const bool tls = client->options().tls.enabled;
    client->execute({QByteArrayLiteral("INFO"), QByteArrayLiteral("cluster")}, nullptr,
                    [client, host, tls, context, done](Result<Reply> info) {
                        if (!info) {
                            deliver(context, done, Result<std::optional<SlotMap>>(info.error()));
                            return;
                        }
                        if (!info->toBytes().contains("cluster_enabled:1")) {
                            deliver(context, done, Result<std::optional<SlotMap>>(std::nullopt));
                            return;
                        }
                        client->execute(
                            {QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("SHARDS")}, nullptr,
                            [client, host, tls, context, done](Result<Reply> shards) {
                                if (!shards) { // a server before 7.0
                                    readSlots(client, host, context, done);
                                    return;
                                }
                                auto map = SlotMap::fromShards(*shards, host, tls);
                                deliver(context, done,
                                        map ? Result<std::optional<SlotMap>>(std::optional(*map))
                                            : Result<std::optional<SlotMap>>(map.error()));
                            });
                    });
}

void discoverTopologyFromAny(std::vector<Client*> clients, Context context,
                             Callback<std::optional<SlotMap>> done)
{
    if (clients.empty()) {
        deliver(
            context, done,
            Result<std::optional<SlotMap>>(ErrorKind::Closed, QStringLiteral("no node to ask")));
        return;
    }
    Client* first = clients.front();
    clients.erase(clients.begin());
    // The next node is asked from the caller's thread, where its owner keeps the clients
    // alive; on a node's worker thread they might be deleted meanwhile.
    discoverTopology(first, context, [clients, context, done](Result<std::optional<SlotMap>> map) {
        if (map || clients.empty())
            done(std::move(map));
        else
            discoverTopologyFromAny(clients, context, done);
    });
}

} // namespace tollgate
