// A plain Client given any node of a real Redis Cluster (three primaries, a replica each)
// becomes a cluster client: it says so, sends every command to the node owning its keys (one
// at a time, in batches, prepared), loads scripts on every primary (a SCRIPT FLUSH on one node
// costs one NOSCRIPT reload), scans every primary exactly once, works for an ACL user, and
// hands each caller its replies in the order of its commands although nodes answer at their
// own pace, lives through a manual failover and a killed primary: every command gets its answer, none
// hangs past its deadline, and writes resume on the new primary.

#include "core/redis/Client.h"
#include "core/redis/CommandBuilder.h"
#include "core/redis/Scan.h"
#include "core/scripts/ScriptRunner.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/TlsCertificates.h"
#include "tests/support/TestEnv.h"

#include <QtTest>
#include <map>
#include <set>

using namespace tollgate;
using tollgate::test::RedisCluster;
using tollgate::test::RedisServer;

class ClusterClientTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void saysWhatTheServerIs();
    void routesEveryCommand();
    void routesBatchesAndPreparedCommands();
    void refusesKeysOfTwoSlots();
    void keepsEachCallersOrder();
    void reloadsScriptsPerNode();
    void scansEveryPrimaryOnce();
    void aclUserWithoutClusterCommands();
    void tlsToEveryNode();
    void followsSlotsMigratingUnderLoad();
    void survivesManualFailover();
    void survivesKilledPrimary();

private:
    std::unique_ptr<Client> open(const QString& url);
    Result<Reply> run(Client* client, const Command& command);
    // Users whose keys live on every primary, `perNode` of each.
    QList<QByteArray> usersOnEveryNode(int perNode);
    // Sends SETs to `key` every few ms while `during` runs; true when every one was answered
    // (success or a clean error) and the last ones succeeded.
    bool writesThrough(Client* client, const QByteArray& key, const std::function<void()>& during);

    RedisCluster m_cluster;
    std::unique_ptr<Client> m_client;
};

void ClusterClientTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 1));
    m_client = open(m_cluster.seedUrl() + QStringLiteral("?timeout=2000"));
}

std::unique_ptr<Client> ClusterClientTest::open(const QString& url)
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

Result<Reply> ClusterClientTest::run(Client* client, const Command& command)
{
    std::optional<Result<Reply>> out;
    QObject context;
    client->execute(command, &context, [&](Result<Reply> reply) { out = std::move(reply); });
    if (!QTest::qWaitFor([&] { return out.has_value(); }, 15'000))
        return Error{ErrorKind::Timeout, QStringLiteral("no reply at all")};
    return *out;
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
    auto single = open(standalone.url());
    QVERIFY(single->isModeKnown());
    QVERIFY(!single->isCluster());
    QVERIFY(run(single.get(), {"SET", "a", "1"}));

    auto forced = open(m_cluster.seedUrl() + QStringLiteral("?cluster=0"));
    QVERIFY(!forced->isCluster());

    // Nothing listens there: the mode is settled (standalone) and commands fail fast.
    auto nowhere = open(QStringLiteral("redis://127.0.0.1:1?connect_timeout=300"));
    QVERIFY(nowhere->isModeKnown());
    QVERIFY(!run(nowhere.get(), {"PING"}));
}

void ClusterClientTest::routesEveryCommand()
{
    std::set<int> nodes;
    for (int i = 0; i < 200; ++i) {
        const QByteArray key = "key:" + QByteArray::number(i);
        QVERIFY(run(m_client.get(), {"SET", key, QByteArray::number(i)}));
        const auto value = run(m_client.get(), {"GET", key});
        QVERIFY2(value, qPrintable(value ? QString() : value.error().toString()));
        QCOMPARE(value->toBytes(), QByteArray::number(i));
        // Really stored where the cluster says the key lives.
        const int node = m_cluster.nodeOfKey(key);
        nodes.insert(node);
        QVERIFY(m_cluster.node(node).command({"GET", key}).contains(QByteArray::number(i)));
    }
    QCOMPARE(nodes.size(), size_t(3));
    QVERIFY(run(m_client.get(), {"PING"})); // keyless: any node
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
    m_client->execute(*encoded, &context, [&](Result<Reply> reply) { out = reply; });
    QTRY_VERIFY_WITH_TIMEOUT(out.has_value(), 15'000);
    QVERIFY2(*out, qPrintable(*out ? QString() : out->error().toString()));
    const int node = m_cluster.nodeOfKey("prepared:{someone}");
    QVERIFY(m_cluster.node(node).command({"GET", "prepared:{someone}"}).contains("yes"));
}

void ClusterClientTest::refusesKeysOfTwoSlots()
{
    const auto reply = run(m_client.get(), {"DEL", "tg:{a}:x", "tg:{b}:x"});
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
    QVERIFY(run(m_client.get(), {"SET", fast, "1"}));
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
        QVERIFY(run(m_client.get(), {"SET", "tg:{" + user + "}:scan:fw:1000", "1"}));
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

void ClusterClientTest::aclUserWithoutClusterCommands()
{
    // ACLs are per node in a cluster: the user exists on each. It may not run CLUSTER SHARDS
    // nor INFO, so the map is learnt from MOVED replies.
    for (int i = 0; i < m_cluster.size(); ++i)
        QCOMPARE(m_cluster.node(i).command({"ACL", "SETUSER", "app", "on", ">app-pw", "~tg:*",
                                            "-@all", "+get", "+set", "+ping"}),
                 QByteArray("+OK\r\n"));
    auto app = open(m_cluster.seedUrl().replace(QLatin1String("redis://"), QLatin1String("redis://app:app-pw@")));
    QVERIFY(app->isCluster());
    std::set<int> nodes;
    for (int i = 0; i < 60; ++i) {
        const QByteArray key = "tg:{acl-" + QByteArray::number(i) + "}:x";
        const auto set = run(app.get(), {"SET", key, "v"});
        QVERIFY2(set, qPrintable(set ? QString() : set.error().toString()));
        QCOMPARE(run(app.get(), {"GET", key})->toBytes(), QByteArray("v"));
        nodes.insert(m_cluster.nodeOfKey(key));
    }
    QCOMPARE(nodes.size(), size_t(3));
    const auto refused = run(app.get(), {"DEL", "tg:{acl-1}:x"});
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
        const auto value = run(m_client.get(), {"GET", key});
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
    auto client = open(tlsCluster.tlsSeedUrl());
    QVERIFY(client->options().tls.enabled);
    QVERIFY(client->isCluster());
    std::set<int> nodes;
    for (int i = 0; i < 60; ++i) {
        const QByteArray key = "tg:{tls-" + QByteArray::number(i) + "}:x";
        const auto set = run(client.get(), {"SET", key, "secret"});
        QVERIFY2(set, qPrintable(set ? QString() : set.error().toString()));
        const int node = tlsCluster.nodeOfKey(key);
        QVERIFY(tlsCluster.node(node).command({"GET", key}).contains("secret"));
        nodes.insert(node);
    }
    QCOMPARE(nodes.size(), size_t(3));
}

bool ClusterClientTest::writesThrough(Client* client, const QByteArray& key,
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
    const bool resumed =
        QTest::qWaitFor([&] { return lastOk && run(client, {"SET", key, "after"}); }, 30'000);
    load.stop();
    // Every command is answered, none later than its deadline allows.
    const bool allAnswered = QTest::qWaitFor([&] { return answered == sent; }, 10'000);
    // With the load stopped, a write lands on the node that owns the key now.
    const bool landed =
        run(client, {"SET", key, "after"}) &&
        m_cluster.node(m_cluster.nodeOfKey(key)).command({"GET", key}).contains("after");
    qInfo("%d writes, %d failed cleanly, all answered: %s, resumed: %s, landed: %s", sent, failed,
          allAnswered ? "yes" : "no", resumed ? "yes" : "no", landed ? "yes" : "no");
    return resumed && allAnswered && landed;
}

void ClusterClientTest::survivesManualFailover()
{
    const QByteArray key = "tg:{failover}:x";
    const int primary = m_cluster.nodeOfKey(key);
    const QByteArray primaryPort =
        "master_port:" + QByteArray::number(m_cluster.node(primary).port());
    int replica = -1;
    for (int i = 0; i < m_cluster.size(); ++i) {
        const QByteArray info = m_cluster.node(i).command({"INFO", "replication"});
        if (info.contains("role:slave") &&
            info.contains(primaryPort))
            replica = i;
    }
    QVERIFY(replica >= 0);
    // The load goes on until the replica owns the key, and then until writes succeed again.
    QVERIFY(writesThrough(m_client.get(), key, [&] {
        QVERIFY(m_cluster.node(replica).command({"CLUSTER", "FAILOVER"}).startsWith("+OK"));
        QVERIFY(QTest::qWaitFor([&] { return m_cluster.nodeOfKey(key) == replica; }, 15'000));
    }));
    QCOMPARE(m_cluster.nodeOfKey(key), replica);
}

void ClusterClientTest::survivesKilledPrimary()
{
    // A key away from node 0, the seed: the client must manage without the node it was given.
    QByteArray key;
    int primary = -1;
    for (int i = 0; primary <= 0 && i < 100; ++i) {
        key = "tg:{killed-" + QByteArray::number(i) + "}:x";
        primary = m_cluster.nodeOfKey(key);
    }
    QVERIFY(primary > 0);
    QVERIFY(writesThrough(m_client.get(), key, [&] {
        m_cluster.node(primary).kill();
        QVERIFY(QTest::qWaitFor(
            [&] {
                const int owner = m_cluster.nodeOfKey(key);
                return owner >= 0 && owner != primary;
            },
            20'000));
    }));
    QVERIFY(m_cluster.nodeOfKey(key) != primary);
}

QTEST_GUILESS_MAIN(ClusterClientTest)
#include "tst_ClusterClient.moc"
