#include "tests/support/ClusterLoad.h"

#include "core/cluster/Topology.h"

#include <QTimer>
#include <QtTest>
#include <map>

namespace tollgate::test {

std::unique_ptr<Client> openClient(const QString& url)
{
    auto options = ConnectionOptions::fromUrl(url);
    if (!options)
        qFatal("bad URL %s", qPrintable(url));
    auto client = std::make_unique<Client>(*options);
    client->open();
    if (!QTest::qWaitFor([&] { return client->isModeKnown(); }, 10'000))
        qWarning("the client never learnt the server's mode");
    return client;
}

Result<Reply> runCommand(Client* client, const Command& command)
{
    std::optional<Result<Reply>> out;
    QObject context;
    client->execute(command, &context, [&](Result<Reply> reply) { out = std::move(reply); });
    if (!QTest::qWaitFor([&] { return out.has_value(); }, 15'000))
        return Error{ErrorKind::Timeout, QStringLiteral("no reply at all")};
    return *out;
}

SlotMap clusterTopology(RedisCluster& cluster)
{
    auto options = ConnectionOptions::fromUrl(cluster.seedUrl());
    if (!options)
        return {};
    Client client(*options);
    client.open();
    std::optional<Result<std::optional<SlotMap>>> map;
    QObject context;
    discoverTopology(&client, &context, [&](Result<std::optional<SlotMap>> r) { map = r; });
    if (!QTest::qWaitFor([&] { return map.has_value(); }, 15'000))
        return {};
    return *map && **map ? ***map : SlotMap();
}

bool writeOnOwners(RedisCluster& cluster, const QList<QByteArray>& keys)
{
    const SlotMap map = clusterTopology(cluster);
    if (!map.coversAllSlots()) {
        qWarning("writeOnOwners: no complete slot map");
        return false;
    }
    const bool replicated = !map.replicas().empty();
    std::map<quint16, QList<QList<QByteArray>>> byPort;
    for (const QByteArray& key : keys)
        byPort[map.primaryForKey(key)->port] << QList<QByteArray>{"SET", key, "1"};
    for (auto& [port, commands] : byPort) {
        for (int n = 0; n < cluster.size(); ++n) {
            if (cluster.node(n).port() != port)
                continue;
            for (qsizetype at = 0; at < commands.size(); at += 1000) {
                QList<QList<QByteArray>> chunk = commands.mid(at, 1000);
                // WAIT counts the writes of its own connection: it rides in the same pipeline.
                if (replicated)
                    chunk << QList<QByteArray>{"WAIT", "1", "10000"};
                const QList<QByteArray> replies = cluster.node(n).pipeline(chunk, 15'000);
                if (replies.size() != chunk.size() || (replicated && replies.back() != ":1\r\n")) {
                    qWarning("writeOnOwners: node %d answered %d of %d", n, int(replies.size()),
                             int(chunk.size()));
                    return false;
                }
            }
        }
    }
    return true;
}

QByteArray keyAwayFromSeed(RedisCluster& cluster, const QByteArray& prefix)
{
    for (int i = 0; i < 100; ++i) {
        const QByteArray key = prefix + QByteArray::number(i) + "}:x";
        if (cluster.nodeOfKey(key) > 0)
            return key;
    }
    return {};
}

bool writesThrough(RedisCluster& cluster, Client* client, const QByteArray& key,
                   const std::function<void()>& during)
{
    int sent = 0, answered = 0, failed = 0;
    bool lastOk = false;
    QObject context;
    QTimer load;
    QObject::connect(&load, &QTimer::timeout, [&] {
        ++sent;
        client->execute({"SET", key, QByteArray::number(sent)}, &context,
                        [&](Result<Reply> reply) {
                            ++answered;
                            failed += reply ? 0 : 1;
                            lastOk = bool(reply);
                        });
    });
    load.start(5);
    QTest::qWait(300);
    during();
    // Writes resume within a few seconds of the new primary taking over.
    const bool resumed = QTest::qWaitFor(
        [&] { return lastOk && runCommand(client, {"SET", key, "after"}); }, 30'000);
    load.stop();
    // Every command is answered, none later than its deadline allows.
    const bool allAnswered = QTest::qWaitFor([&] { return answered == sent; }, 10'000);
    // With the load stopped (a load write could overwrite the probe), a write lands on the
    // node that owns the key now.
    const bool written = bool(runCommand(client, {"SET", key, "after"}));
    const int owner = cluster.nodeOfKey(key);
    const bool landed =
        written && owner >= 0 && cluster.node(owner).command({"GET", key}).contains("after");
    qInfo("%d writes, %d failed cleanly, all answered: %s, resumed: %s, landed: %s", sent, failed,
          allAnswered ? "yes" : "no", resumed ? "yes" : "no", landed ? "yes" : "no");
    return resumed && allAnswered && landed;
}

bool manualFailoverUnderLoad(RedisCluster& cluster, Client* client, const QByteArray& key)
{
    const int primary = cluster.nodeOfKey(key);
    if (primary < 0)
        return false;
    // By node id: a replica's INFO names the port it replicates from, the TLS one on a TLS
    // cluster, which the fixture does not address nodes by.
    const QByteArray myId = cluster.node(primary).command({"CLUSTER", "MYID"}); // "$40\r\n<id>\r\n"
    const QByteArray id = myId.split('\r').value(1).trimmed();
    int replica = -1;
    for (int i = 0; i < cluster.size() && !id.isEmpty(); ++i)
        if (cluster.node(i).command({"CLUSTER", "NODES"}).contains(QByteArray("myself,slave " + id)))
            replica = i;
    if (replica < 0) {
        qWarning("no replica of node %d", primary);
        return false;
    }
    // The load goes on until the replica owns the key, and then until writes succeed again.
    bool tookOver = false;
    const bool wrote = writesThrough(cluster, client, key, [&] {
        tookOver = cluster.node(replica).command({"CLUSTER", "FAILOVER"}).startsWith("+OK") &&
                   QTest::qWaitFor([&] { return cluster.nodeOfKey(key) == replica; }, 15'000);
    });
    return wrote && tookOver && cluster.nodeOfKey(key) == replica;
}

bool killedPrimaryUnderLoad(RedisCluster& cluster, Client* client, const QByteArray& key)
{
    const int primary = cluster.nodeOfKey(key);
    if (primary <= 0) {
        qWarning("the key's primary is node %d: node 0 must stay up", primary);
        return false;
    }
    auto promoted = [&] {
        const int owner = cluster.nodeOfKey(key);
        return owner >= 0 && owner != primary;
    };
    bool tookOver = false;
    const bool wrote = writesThrough(cluster, client, key, [&] {
        cluster.node(primary).kill();
        tookOver = QTest::qWaitFor(promoted, 20'000);
    });
    return wrote && tookOver && promoted();
}

} // namespace tollgate::test
