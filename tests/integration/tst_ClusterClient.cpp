// A plain Client given any node of a real Redis Cluster (three primaries, a replica each)
// becomes a cluster client: it says so, sends every command to the node owning its keys (one
// at a time, in batches, prepared), loads scripts on every primary (a SCRIPT FLUSH on one node
// costs one NOSCRIPT reload), scans every primary exactly once, works for an ACL user, and
// hands each caller its replies in the order of its commands although nodes answer at their
// own pace, lives through a manual failover and a killed primary: every command gets its answer, none
// hangs past its deadline, and writes resume on the new primary.

#include "core/client/ClientInternals.h"
#include "core/client/Scan.h"
#include "core/redis/CommandBuilder.h"
#include "core/scripts/ScriptRunner.h"
#include "tests/support/ClusterLoad.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/TestEnv.h"
#include "tests/support/TlsCertificates.h"
#include "tollgate/Client.h"
#include "tollgate/Limiter.h"
#include "tollgate/Repair.h"

#include <QtTest>
#include <map>
#include <set>

using namespace tollgate;
using tollgate::test::RedisCluster;
using tollgate::test::RedisServer;
using tollgate::test::openClient;
using tollgate::test::runCommand;

namespace {

// Hits (hit.lua through a Limiter) for users of every primary, one every few ms, from
// construction until finish(): around a failover, as an application keeps hitting. Its keys
// have a prefix of their own, kHitsPrefix, apart from the other tests' raw keys.
const QByteArray kHitsPrefix = QByteArrayLiteral("hits");

class HitsAround
{
public:
    HitsAround(Client* client, QList<QByteArray> users)
        : m_limiter(client, KeySchema(kHitsPrefix)), m_users(std::move(users)),
          m_policy(test::makePolicy("failover", 1'000'000, 60'000))
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const QByteArray& user = m_users[m_sent % m_users.size()];
            ++m_sent;
            m_limiter.hit(m_policy, user, 0, &m_context, [this](Result<HitResult> hit) {
                ++m_answered;
                m_failed += hit ? 0 : 1;
            });
        });
        m_timer.start(5);
    }

    // True when every user's hits pass again (within 30 s) and every hit sent was answered,
    // success or a clean error, none kept past its deadline.
    bool finish()
    {
        const bool resumed = QTest::qWaitFor(
            [&] {
                for (const QByteArray& user : m_users) {
                    const auto hit = test::await<HitResult>([&](QObject* c, Callback<HitResult> done) {
                        m_limiter.hit(m_policy, user, 0, c, std::move(done));
                    });
                    if (!hit || !hit->allowed)
                        return false;
                }
                return true;
            },
            30'000);
        m_timer.stop();
        const bool allAnswered = QTest::qWaitFor([&] { return m_answered == m_sent; }, 10'000);
        qInfo("%d hits, %d failed cleanly, all answered: %s, resumed for every user: %s", m_sent,
              m_failed, allAnswered ? "yes" : "no", resumed ? "yes" : "no");
        return resumed && allAnswered;
    }

private:
    Limiter m_limiter;
    QList<QByteArray> m_users;
    Policy m_policy;
    QObject m_context;
    QTimer m_timer;
    int m_sent = 0, m_answered = 0, m_failed = 0;
};

} // namespace

class ClusterClientTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void saysWhatTheServerIs();
    void routesEveryCommand();
    void reachesNodesByTheirAnnouncedEndpoint_data();
    void reachesNodesByTheirAnnouncedEndpoint();
    void routesBatchesAndPreparedCommands();
    void refusesKeysOfTwoSlots();
    void keepsEachCallersOrder();
    void reloadsScriptsPerNode();
    void scansEveryPrimaryOnce();
    void scansOnTheRouterConnections();
    void aclUserWithoutClusterCommands();
    void tlsToEveryNode();
    void followsSlotsMigratingUnderLoad();
    void survivesManualFailover();
    void survivesKilledPrimary();

private:
    // Users whose keys live on every primary, `perNode` of each.
    QList<QByteArray> usersOnEveryNode(int perNode);
    // Keys of HitsAround without the TTL they need, on every primary (tollgatectl repair's
    // dry run).
    qint64 keysWithoutTtl();

    RedisCluster m_cluster;
    std::unique_ptr<Client> m_client;
};

void ClusterClientTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 1));
    m_client = openClient(m_cluster.seedUrl() + QStringLiteral("?timeout=2000"));
}

QList<QByteArray> ClusterClientTest::usersOnEveryNode(int perNode)
{
    std::map<int, int> taken;
    QList<QByteArray> users;
    for (int i = 0; users.size() < perNode * 3 && i < 10'000; ++i) {
        const QByteArray user = "user-" + QByteArray::number(i);
        const int node = m_cluster.nodeOfKey("tg:{" + user + "}:ban");
        if (node >= 0 && taken[node] < perNode) {
            ++taken[node];
            users << user;
        }
    }
    return users;
}

void ClusterClientTest::saysWhatTheServerIs()
{
    QVERIFY(m_client->isCluster());

    RedisServer standalone;
    TOLLGATE_REQUIRE(standalone, start());
    auto single = openClient(standalone.url());
    QVERIFY(single->isModeKnown());
    QVERIFY(!single->isCluster());
    QVERIFY(runCommand(single.get(), {"SET", "a", "1"}));

    auto forced = openClient(m_cluster.seedUrl() + QStringLiteral("?cluster=0"));
    QVERIFY(!forced->isCluster());

    // Nothing listens there: the mode is settled (standalone) and commands fail fast.
    auto nowhere = openClient(QStringLiteral("redis://127.0.0.1:1?connect_timeout=300"));
    QVERIFY(nowhere->isModeKnown());
    QVERIFY(!runCommand(nowhere.get(), {"PING"}));
}

void ClusterClientTest::routesEveryCommand()
{
    std::set<int> nodes;
    for (int i = 0; i < 200; ++i) {
        const QByteArray key = "key:" + QByteArray::number(i);
        QVERIFY(runCommand(m_client.get(), {"SET", key, QByteArray::number(i)}));
        const auto value = runCommand(m_client.get(), {"GET", key});
        QVERIFY2(value, qPrintable(value ? QString() : value.error().toString()));
        QCOMPARE(value->toBytes(), QByteArray::number(i));
        // Really stored where the cluster says the key lives.
        const int node = m_cluster.nodeOfKey(key);
        nodes.insert(node);
        QVERIFY(m_cluster.node(node).command({"GET", key}).contains(QByteArray::number(i)));
    }
    QCOMPARE(nodes.size(), size_t(3));
    QVERIFY(runCommand(m_client.get(), {"PING"})); // keyless: any node
}

void ClusterClientTest::reachesNodesByTheirAnnouncedEndpoint_data()
{
    // What CLUSTER SHARDS gives as a node's "endpoint", as redis-cli reads it: a hostname the
    // nodes announce; "" (unknown-endpoint) or "?" (no hostname announced): reach the node at
    // the host the seed was given by.
    QTest::addColumn<QByteArray>("endpointType");
    QTest::addColumn<QByteArray>("hostname");
    QTest::addColumn<QByteArray>("endpoint");
    QTest::newRow("hostname") << QByteArray("hostname") << QByteArray("localhost")
                              << QByteArray("localhost");
    QTest::newRow("hostname, none announced")
        << QByteArray("hostname") << QByteArray() << QByteArray("?");
    QTest::newRow("unknown endpoint")
        << QByteArray("unknown-endpoint") << QByteArray() << QByteArray();
}

void ClusterClientTest::reachesNodesByTheirAnnouncedEndpoint()
{
    QFETCH(QByteArray, endpointType);
    QFETCH(QByteArray, hostname);
    QFETCH(QByteArray, endpoint);
    auto announce = [&](const QByteArray& type, const QByteArray& hostname) {
        for (int i = 0; i < m_cluster.size(); ++i)
            if (!m_cluster.node(i).command({"CONFIG", "SET", "cluster-announce-hostname", hostname,
                                            "cluster-preferred-endpoint-type", type})
                     .contains("OK"))
                return false;
        return true;
    };
    QVERIFY(announce(endpointType, hostname));
    // Hostnames travel by gossip: wait until the seed reports every node's.
    QTRY_COMPARE_WITH_TIMEOUT(
        m_cluster.node(0).command({"CLUSTER", "SHARDS"}).count(QByteArray(
            "endpoint\r\n$" + QByteArray::number(endpoint.size()) + "\r\n" + endpoint + "\r\n")),
        qsizetype(m_cluster.size()), 15'000);

    auto client = openClient(m_cluster.seedUrl() + QStringLiteral("?timeout=3000"));
    QVERIFY(client->isCluster());
    std::set<int> nodes;
    for (int i = 0; i < 60; ++i) {
        const QByteArray key = "announced:" + QByteArray::number(i);
        const auto set = runCommand(client.get(), {"SET", key, "1"});
        QVERIFY2(set, qPrintable(set ? QString() : set.error().toString()));
        nodes.insert(m_cluster.nodeOfKey(key));
        QVERIFY(m_cluster.node(m_cluster.nodeOfKey(key)).command({"GET", key}).contains("1"));
    }
    QCOMPARE(nodes.size(), size_t(3));
    QVERIFY(announce("ip", ""));
}

void ClusterClientTest::routesBatchesAndPreparedCommands()
{
    std::vector<Command> batch;
    for (int i = 0; i < 100; ++i)
        batch.push_back({"SET", "batch:" + QByteArray::number(i), QByteArray::number(i * 2)});
    batch.push_back({"GET", "batch:7"});
    std::optional<std::vector<Result<Reply>>> replies;
    QObject context;
    m_client->executeBatch(batch, &context, [&](std::vector<Result<Reply>> r) { replies = r; });
    QTRY_VERIFY_WITH_TIMEOUT(replies.has_value(), 15'000);
    QCOMPARE(replies->size(), batch.size());
    for (const auto& reply : *replies)
        QVERIFY2(reply, qPrintable(reply ? QString() : reply.error().toString()));
    QCOMPARE(replies->back()->toBytes(), QByteArray("14"));

    // An already encoded command (as a prepared hit is) is routed by its decoded keys.
    CommandBuilder builder(3);
    builder.add("SET").add("prepared:{someone}").add("yes");
    auto encoded = std::move(builder).finish();
    QVERIFY(encoded);
    std::optional<Result<Reply>> out;
    ClientInternals::execute(*m_client, *encoded, &context,
                             [&](Result<Reply> reply) { out = reply; });
    QTRY_VERIFY_WITH_TIMEOUT(out.has_value(), 15'000);
    QVERIFY2(*out, qPrintable(*out ? QString() : out->error().toString()));
    const int node = m_cluster.nodeOfKey("prepared:{someone}");
    QVERIFY(m_cluster.node(node).command({"GET", "prepared:{someone}"}).contains("yes"));
}

void ClusterClientTest::refusesKeysOfTwoSlots()
{
    const auto reply = runCommand(m_client.get(), {"DEL", "tg:{a}:x", "tg:{b}:x"});
    QVERIFY(!reply);
    QCOMPARE(reply.error().kind, ErrorKind::InvalidInput);
    QVERIFY2(reply.error().message.contains(QLatin1String("different cluster slots")),
             qPrintable(reply.error().message));
}

void ClusterClientTest::keepsEachCallersOrder()
{
    // One key on a node whose writes are held back for a moment, others on another node.
    QByteArray slow, fast, slowToo;
    const int held = m_cluster.nodeOfKey("order:slow");
    slow = "order:slow";
    for (int i = 0; fast.isEmpty() || slowToo.isEmpty(); ++i) {
        const QByteArray key = "order:" + QByteArray::number(i);
        const int node = m_cluster.nodeOfKey(key);
        if (node != held && fast.isEmpty())
            fast = key;
        else if (node == held && key != slow && slowToo.isEmpty())
            slowToo = key;
    }
    QVERIFY(runCommand(m_client.get(), {"SET", fast, "1"}));
    QVERIFY(m_cluster.node(held).command({"CLIENT", "PAUSE", "600", "WRITE"}).contains("OK"));

    QStringList seen; // main thread: replies to the two context objects
    QStringList seenWithoutContext;
    QMutex mutex; // replies without a context run on the client's worker thread
    QObject one, two;
    auto note = [&](const QString& what) {
        return [&, what](Result<Reply> reply) {
            QVERIFY2(reply, qPrintable(what + QLatin1Char(' ') +
                                       (reply ? QString() : reply.error().toString())));
            seen << what;
        };
    };
    auto noteWithoutContext = [&](const QString& what) {
        return [&, what](Result<Reply>) {
            QMutexLocker lock(&mutex);
            seenWithoutContext << what;
        };
    };
    m_client->execute({"SET", slow, "x"}, &one, note(QStringLiteral("one:0")));
    m_client->execute({"GET", fast}, &one, note(QStringLiteral("one:1")));
    m_client->execute({"INCR", fast}, &one, note(QStringLiteral("one:2")));
    m_client->executeBatch({{"GET", fast}, {"GET", slow}}, &one,
                           [&](std::vector<Result<Reply>>) { seen << QStringLiteral("one:3"); });
    m_client->execute({"GET", fast}, &two, note(QStringLiteral("two:0")));
    m_client->execute({"SET", slowToo, "y"}, nullptr, noteWithoutContext(QStringLiteral("none:0")));
    m_client->execute({"GET", fast}, nullptr, noteWithoutContext(QStringLiteral("none:1")));
    QTRY_COMPARE_WITH_TIMEOUT(seen.size(), 5, 15'000);

    // The other caller was not held up behind the paused node...
    QCOMPARE(seen.first(), QStringLiteral("two:0"));
    // ...while each caller got its replies in the order it sent the commands.
    seen.removeFirst();
    QCOMPARE(seen, QStringList({QStringLiteral("one:0"), QStringLiteral("one:1"),
                                QStringLiteral("one:2"), QStringLiteral("one:3")}));
    QTRY_VERIFY_WITH_TIMEOUT([&] { QMutexLocker lock(&mutex); return seenWithoutContext.size() == 2; }(),
                             15'000);
    QCOMPARE(seenWithoutContext, QStringList({QStringLiteral("none:0"), QStringLiteral("none:1")}));
}

void ClusterClientTest::reloadsScriptsPerNode()
{
    const QList<QByteArray> users = usersOnEveryNode(2);
    // Every node forgets its scripts; one of them forgets again after the first round.
    for (int i = 0; i < m_cluster.size(); ++i)
        m_cluster.node(i).command({"SCRIPT", "FLUSH"});
    for (int round = 0; round < 2; ++round) {
        for (const QByteArray& user : users) {
            const QByteArray audit = "tg:{" + user + "}:audit";
            std::optional<Result<Reply>> out;
            QObject context;
            runScript(m_client.get(), QStringLiteral("ban"), {"tg:{" + user + "}:ban", audit, audit},
                      {user, "", "tester", "cluster test", "60000", "0", ""}, &context,
                      [&](Result<Reply> reply) { out = reply; });
            QTRY_VERIFY_WITH_TIMEOUT(out.has_value(), 15'000);
            QVERIFY2(*out, qPrintable(*out ? QString() : out->error().toString()));
            const int node = m_cluster.nodeOfKey(audit);
            QVERIFY(m_cluster.node(node).command({"EXISTS", "tg:{" + user + "}:ban"}) ==
                    ":1\r\n");
        }
        m_cluster.node(m_cluster.nodeOfKey("tg:{" + users.last() + "}:ban"))
            .command({"SCRIPT", "FLUSH"});
    }
}

void ClusterClientTest::scansEveryPrimaryOnce()
{
    const QList<QByteArray> users = usersOnEveryNode(100);
    for (const QByteArray& user : users)
        QVERIFY(runCommand(m_client.get(), {"SET", "tg:{" + user + "}:scan:fw:1000", "1"}));
    std::multiset<QByteArray> found;
    std::optional<Result<qint64>> total;
    ScanOptions options;
    options.pattern = "tg:{*}:scan:*";
    options.count = 20;
    scanKeys(
        m_client.get(), options,
        [&](const QList<QByteArray>& keys) {
            QMetaObject::invokeMethod(qApp, [&, keys] { found.insert(keys.begin(), keys.end()); });
            return true;
        },
        [&](Result<qint64> result) {
            QMetaObject::invokeMethod(qApp, [&, result] { total = result; });
        });
    QTRY_VERIFY_WITH_TIMEOUT(total.has_value(), 30'000);
    QVERIFY2(*total, qPrintable(*total ? QString() : total->error().toString()));
    QCOMPARE(found.size(), size_t(users.size()));
    for (const QByteArray& user : users)
        QCOMPARE(found.count("tg:{" + user + "}:scan:fw:1000"), size_t(1));

    // maxKeys stops the scan of every node.
    options.maxKeys = 50;
    std::optional<Result<QList<QByteArray>>> some;
    QObject context;
    collectKeys(m_client.get(), options, &context, [&](Result<QList<QByteArray>> keys) {
        some = keys;
    });
    QTRY_VERIFY_WITH_TIMEOUT(some.has_value(), 30'000);
    QVERIFY(*some);
    QCOMPARE((*some)->size(), 50);
}

void ClusterClientTest::scansOnTheRouterConnections()
{
    // A scan through the client borrows the router's connection to each node: once one scan
    // has reached every primary, the next opens no connection anywhere. (Each INFO of the
    // fixture comes on a connection of its own: one more per node between the two readings.)
    auto connectionsReceived = [&] {
        std::vector<qint64> counts;
        for (int i = 0; i < m_cluster.size(); ++i) {
            const QByteArray info = m_cluster.node(i).command({"INFO", "stats"});
            const QByteArray field = "total_connections_received:";
            const qsizetype at = info.indexOf(field) + field.size();
            counts.push_back(info.mid(at, info.indexOf('\r', at) - at).toLongLong());
        }
        return counts;
    };
    ScanOptions options;
    options.pattern = "tg:{*}:scan:*";
    auto scanAll = [&] {
        std::optional<Result<QList<QByteArray>>> keys;
        QObject context;
        collectKeys(m_client.get(), options, &context,
                    [&](Result<QList<QByteArray>> r) { keys = std::move(r); });
        return QTest::qWaitFor([&] { return keys.has_value(); }, 30'000) && *keys &&
               !(*keys)->isEmpty();
    };
    QVERIFY(scanAll());
    const std::vector<qint64> before = connectionsReceived();
    QVERIFY(scanAll());
    const std::vector<qint64> after = connectionsReceived();
    for (size_t i = 0; i < before.size(); ++i) {
        QVERIFY(before[i] > 0);
        QCOMPARE(after[i] - before[i], qint64(1));
    }
}

void ClusterClientTest::aclUserWithoutClusterCommands()
{
    // ACLs are per node in a cluster: the user exists on each. It may not run CLUSTER SHARDS
    // nor INFO, so the map is learnt from MOVED replies.
    for (int i = 0; i < m_cluster.size(); ++i)
        QCOMPARE(m_cluster.node(i).command({"ACL", "SETUSER", "app", "on", ">app-pw", "~tg:*",
                                            "-@all", "+get", "+set", "+ping"}),
                 QByteArray("+OK\r\n"));
    auto app = openClient(m_cluster.seedUrl().replace(QLatin1String("redis://"),
                                                      QLatin1String("redis://app:app-pw@")));
    QVERIFY(app->isCluster());
    std::set<int> nodes;
    for (int i = 0; i < 60; ++i) {
        const QByteArray key = "tg:{acl-" + QByteArray::number(i) + "}:x";
        const auto set = runCommand(app.get(), {"SET", key, "v"});
        QVERIFY2(set, qPrintable(set ? QString() : set.error().toString()));
        QCOMPARE(runCommand(app.get(), {"GET", key})->toBytes(), QByteArray("v"));
        nodes.insert(m_cluster.nodeOfKey(key));
    }
    QCOMPARE(nodes.size(), size_t(3));
    const auto refused = runCommand(app.get(), {"DEL", "tg:{acl-1}:x"});
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind, ErrorKind::NoPerm);
}

void ClusterClientTest::followsSlotsMigratingUnderLoad()
{
    // 2000 of the first node's slots move to the next one while its keys are written.
    const int from = m_cluster.nodeOfKey("tg:{user-0}:x");
    const int to = (from + 1) % 3; // the primaries are nodes 0..2 until the failover tests
    QList<QByteArray> keys;
    for (int i = 0; keys.size() < 300 && i < 100'000; ++i) {
        const QByteArray key = "tg:{mig-" + QByteArray::number(i) + "}:x";
        if (m_cluster.nodeOfKey(key) == from)
            keys << key;
    }
    QCOMPARE(keys.size(), 300);
    auto myId = [&](int node) {
        const QByteArray reply = m_cluster.node(node).command({"CLUSTER", "MYID"});
        return QString::fromUtf8(reply.mid(reply.indexOf("\r\n") + 2).trimmed());
    };
    QProcess reshard;
    reshard.setProcessChannelMode(QProcess::MergedChannels);
    reshard.start(RedisCluster::redisCliPath(),
                  {QStringLiteral("--cluster"), QStringLiteral("reshard"),
                   QStringLiteral("127.0.0.1:%1").arg(m_cluster.node(from).port()),
                   QStringLiteral("--cluster-from"), myId(from), QStringLiteral("--cluster-to"),
                   myId(to), QStringLiteral("--cluster-slots"), QStringLiteral("2000"),
                   QStringLiteral("--cluster-yes")});
    // Every key is written and read back while its slot may be moving: MOVED and ASK are
    // followed, nothing fails, nothing is lost.
    int round = 0, failures = 0;
    while (reshard.state() != QProcess::NotRunning || round < 2) {
        for (const QByteArray& key : keys) {
            const QByteArray value = QByteArray::number(round);
            QObject context;
            bool done = false;
            m_client->execute({"SET", key, value}, &context, [&](Result<Reply> reply) {
                failures += reply ? 0 : 1;
                if (!reply)
                    qWarning("SET %s: %s", key.constData(), qPrintable(reply.error().toString()));
                done = true;
            });
            QTRY_VERIFY_WITH_TIMEOUT(done, 15'000);
        }
        ++round;
        reshard.waitForFinished(0);
    }
    QCOMPARE(reshard.exitCode(), 0);
    QCOMPARE(failures, 0);
    int moved = 0;
    for (const QByteArray& key : keys) {
        const auto value = runCommand(m_client.get(), {"GET", key});
        QVERIFY(value);
        QCOMPARE(value->toBytes(), QByteArray::number(round - 1));
        moved += m_cluster.nodeOfKey(key) == to ? 1 : 0;
    }
    QVERIFY2(moved > 0, "the reshard moved none of the keys' slots");
}

void ClusterClientTest::tlsToEveryNode()
{
    // A cluster of its own whose nodes serve TLS: the seed is given by its TLS port, and the
    // other nodes are reached on the TLS ports they announce, with the seed's certificates (a
    // TLS client on a plain port would only time out).
    test::TlsCertificates certs;
    TOLLGATE_REQUIRE(certs, generate());
    RedisCluster tlsCluster;
    TOLLGATE_REQUIRE(tlsCluster, start(3, 0, &certs.files()));
    auto client = openClient(tlsCluster.tlsSeedUrl());
    QVERIFY(client->options().tls.enabled);
    QVERIFY(client->isCluster());
    std::set<int> nodes;
    for (int i = 0; i < 60; ++i) {
        const QByteArray key = "tg:{tls-" + QByteArray::number(i) + "}:x";
        const auto set = runCommand(client.get(), {"SET", key, "secret"});
        QVERIFY2(set, qPrintable(set ? QString() : set.error().toString()));
        const int node = tlsCluster.nodeOfKey(key);
        QVERIFY(tlsCluster.node(node).command({"GET", key}).contains("secret"));
        nodes.insert(node);
    }
    QCOMPARE(nodes.size(), size_t(3));
}

qint64 ClusterClientTest::keysWithoutTtl()
{
    const auto report = test::await<RepairReport>(
        [&](QObject* context, Callback<RepairReport> done) {
            Repair(m_client.get(), KeySchema(kHitsPrefix)).run({}, nullptr, context, std::move(done));
        },
        30'000);
    if (!report || report->totals.scanned == 0) {
        qWarning("repair: %s", report ? "no key scanned" : qPrintable(report.error().toString()));
        return -1;
    }
    return report->totals.found;
}

void ClusterClientTest::survivesManualFailover()
{
    // Hits of users on every primary go on around it, as an application's would.
    HitsAround hits(m_client.get(), usersOnEveryNode(2));
    QVERIFY(test::manualFailoverUnderLoad(m_cluster, m_client.get(), "tg:{failover}:x"));
    QVERIFY(hits.finish());
    QCOMPARE(keysWithoutTtl(), qint64(0));
}

void ClusterClientTest::survivesKilledPrimary()
{
    HitsAround hits(m_client.get(), usersOnEveryNode(2));
    // A key away from node 0, the seed: the client must manage without the node it was given.
    const QByteArray key = test::keyAwayFromSeed(m_cluster, "tg:{killed-");
    QVERIFY(!key.isEmpty());
    QVERIFY(test::killedPrimaryUnderLoad(m_cluster, m_client.get(), key));
    QVERIFY(hits.finish());
    QCOMPARE(keysWithoutTtl(), qint64(0));
}

QTEST_GUILESS_MAIN(ClusterClientTest)
#include "tst_ClusterClient.moc"
