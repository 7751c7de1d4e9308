// cluster: what the server is. A standalone server says so (and through Sentinel, the sentinels,
// the primary and its replicas as the sentinels see them); a cluster node lists every node with
// its role, slots and INFO figures, and the primaries summed (INFO is node-local).
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "core/cluster/NodeStats.h"
#include "core/cluster/Topology.h"
#include "core/sentinel/SentinelTopology.h"

#include <QLocale>

namespace tollgate::ctl {

namespace {

QJsonObject nodeJson(const NodeStats& node, int slots)
{
    return {{QStringLiteral("address"), node.address},
            {QStringLiteral("role"),
             node.primary ? QStringLiteral("primary") : QStringLiteral("replica")},
            {QStringLiteral("slots"), slots},
            {QStringLiteral("keys"), node.keys},
            {QStringLiteral("ops_per_sec"), node.opsPerSec},
            {QStringLiteral("used_memory"), node.usedMemory},
            {QStringLiteral("clients"), node.connectedClients}};
}

QStringList nodeRow(const NodeStats& node, const QString& role, int slots)
{
    const QLocale locale;
    return {node.address,
            role,
            QString::number(slots),
            QString::number(node.keys),
            QString::number(node.opsPerSec),
            locale.formattedDataSize(node.usedMemory),
            QString::number(node.connectedClients)};
}

// A Sentinel deployment as its sentinels describe it.
int printSentinel(Cli& cli, Client* client)
{
    NodeClients sentinels(sentinelClientOptions(client->options()));
    auto topology = waitFor<SentinelTopology>([&](Callback<SentinelTopology> done) {
        readSentinelTopology(&sentinels, client->options().sentinel, nullptr, done);
    });
    if (!topology)
        return fail(topology.error());
    QJsonArray replicas;
    QStringList replicaTexts;
    for (const SentinelTopology::Replica& replica : topology->replicas) {
        replicas.append(QJsonObject{{QStringLiteral("address"), replica.address.text()},
                                    {QStringLiteral("flags"), QString::fromUtf8(replica.flags)},
                                    {QStringLiteral("link_ok"), replica.linkOk}});
        replicaTexts << replica.address.text() + QStringLiteral(" (") +
                            QString::fromUtf8(replica.flags) + QLatin1Char(')');
    }
    QJsonArray sentinelArray;
    QStringList sentinelTexts;
    for (const SentinelTopology::Sentinel& sentinel : topology->sentinels) {
        sentinelArray.append(QJsonObject{{QStringLiteral("address"), sentinel.address.text()},
                                         {QStringLiteral("answered"), sentinel.answered}});
        sentinelTexts << sentinel.address.text() +
                             (sentinel.answered ? QString() : QStringLiteral(" (no answer)"));
    }
    if (cli.json) {
        printJson(QJsonObject{{QStringLiteral("cluster"), false},
                              {QStringLiteral("sentinel"),
                               QJsonObject{{QStringLiteral("master"), topology->masterName},
                                           {QStringLiteral("primary"), topology->primary.text()},
                                           {QStringLiteral("primary_flags"),
                                            QString::fromUtf8(topology->primaryFlags)},
                                           {QStringLiteral("quorum"), topology->quorum},
                                           {QStringLiteral("replicas"), replicas},
                                           {QStringLiteral("sentinels"), sentinelArray}}}});
        return ExitOk;
    }
    printLine(QStringLiteral("'%1' through Sentinel: primary %2 (%3), quorum %4")
                  .arg(topology->masterName, topology->primary.text(),
                       QString::fromUtf8(topology->primaryFlags))
                  .arg(topology->quorum));
    printLine(QStringLiteral("replicas: %1")
                  .arg(replicaTexts.isEmpty() ? QStringLiteral("none")
                                              : replicaTexts.join(QStringLiteral(", "))));
    printLine(QStringLiteral("sentinels: %1").arg(sentinelTexts.join(QStringLiteral(", "))));
    return ExitOk;
}

class ClusterCommand final : public Command
{
public:
    ClusterCommand() : Command(0, 0) {}

private:
    Result<int> execute() override
    {
        Client* client = this->client();
        Cli& cli = this->cli();
        auto map = waitFor<std::optional<SlotMap>>([&](Callback<std::optional<SlotMap>> done) {
            discoverTopology(client, nullptr, done);
        });
        if (!map)
            return map.error();
        if (!*map) {
            if (client->options().sentinel.enabled())
                return printSentinel(cli, client);
            if (cli.json)
                printJson(QJsonObject{{QStringLiteral("cluster"), false}});
            else
                printLine(QStringLiteral("%1: a standalone server (cluster mode is off)")
                              .arg(client->options().endpoint()));
            return ExitOk;
        }
        NodeClients nodes(client->options());
        auto stats = waitFor<ClusterStats>(
            [&](Callback<ClusterStats> done) { sampleClusterStats(&nodes, **map, nullptr, done); });
        if (!stats)
            return stats.error();
        const SlotMap& slots = **map;
        if (cli.json) {
            QJsonArray array;
            for (const NodeStats& node : stats->nodes)
                array.append(nodeJson(node, slots.slotCount(node.address)));
            printJson(QJsonObject{{QStringLiteral("cluster"), true},
                                  {QStringLiteral("all_slots_served"), slots.coversAllSlots()},
                                  {QStringLiteral("unreachable"), stats->unreachable},
                                  {QStringLiteral("nodes"), array},
                                  {QStringLiteral("primaries_total"),
                                   nodeJson(stats->primariesTotal, kClusterSlots)}});
            return ExitOk;
        }
        QList<QStringList> rows{{QStringLiteral("NODE"), QStringLiteral("ROLE"),
                                 QStringLiteral("SLOTS"), QStringLiteral("KEY COUNT"),
                                 QStringLiteral("OPS/S"), QStringLiteral("MEMORY"),
                                 QStringLiteral("CLIENTS")}};
        for (const NodeStats& node : stats->nodes)
            rows << nodeRow(node,
                            node.primary ? QStringLiteral("primary") : QStringLiteral("replica"),
                            slots.slotCount(node.address));
        rows << nodeRow(stats->primariesTotal, QStringLiteral("(primaries)"), kClusterSlots);
        rows.last()[0] = QStringLiteral("total");
        printTable(rows);
        if (!slots.coversAllSlots())
            warn(QStringLiteral("some slots have no primary: the cluster is not serving all keys"));
        if (stats->unreachable > 0)
            warn(QStringLiteral("%1 node(s) did not answer INFO").arg(stats->unreachable));
        return ExitOk;
    }
};

} // namespace

int clusterCommand(Cli& cli, const QStringList& args)
{
    return runCommand<ClusterCommand>(cli, args);
}

} // namespace tollgate::ctl
