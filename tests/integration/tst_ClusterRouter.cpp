// Routing on a real Redis Cluster (three primaries): every command reaches the node owning its
// keys; keys spanning slots are refused before sending; a slot moved under the client's feet
// (MOVED) and a slot in the middle of a migration (ASK) are followed as redis-cli -c does; a
// Tollgate script with one user's keys runs where they live.

#include "core/cluster/ClusterEvents.h"
#include "core/cluster/ClusterRouter.h"
#include "core/cluster/CommandKeys.h"
#include "tests/support/CliRunner.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/TestEnv.h"
#include "tollgate/KeySchema.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::RedisCluster;
using tollgate::test::RedisServer;

class ClusterRouterTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void commandSlots();
    void routesEveryKey();
    void refusesCrossSlotBeforeSending();
    void scriptRunsWhereItsKeysLive();
    void eventsOncePerMessage();
    void cliShowsEveryNode();
    void followsMoved();
    void followsAskDuringMigration();

private:
    Result<Reply> run(const Command& command);
    // The fixture node serving `port`.
    int nodeAt(quint16 port);
    // Node ids by fixture index (CLUSTER MYID).
    QByteArray idOf(int node);
    // Marks `slot` migrating from node `from` to node `to` and moves `key` there, the first
    // steps of redis-cli --cluster reshard.
    bool beginMigration(int slot, int from, int to, const QByteArray& key);

    RedisCluster m_cluster;
    std::unique_ptr<ClusterRouter> m_router;
};

void ClusterRouterTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 0));
    m_router = std::make_unique<ClusterRouter>(*ConnectionOptions::fromUrl(m_cluster.seedUrl()));
    m_router->open();
    QTRY_VERIFY(m_router->isReady());
}

Result<Reply> ClusterRouterTest::run(const Command& command)
{
    std::optional<Result<Reply>> out;
    QObject context;
    m_router->execute(command, &context, [&](Result<Reply> reply) { out = std::move(reply); });
    if (!QTest::qWaitFor([&] { return out.has_value(); }, 10'000))
        return Error{ErrorKind::Timeout, QStringLiteral("no reply")};
    return *out;
}

int ClusterRouterTest::nodeAt(quint16 port)
{
    for (int i = 0; i < m_cluster.size(); ++i)
        if (m_cluster.node(i).port() == port)
            return i;
    return -1;
}

QByteArray ClusterRouterTest::idOf(int node)
{
    QByteArray reply = m_cluster.node(node).command({"CLUSTER", "MYID"});
    // "$40\r\n<id>\r\n"
    return reply.mid(reply.indexOf("\r\n") + 2).trimmed();
}

bool ClusterRouterTest::beginMigration(int slot, int from, int to, const QByteArray& key)
{
    const QByteArray slotText = QByteArray::number(slot);
    const QByteArray toPort = QByteArray::number(m_cluster.node(to).port());
    return m_cluster.node(to)
               .command({"CLUSTER", "SETSLOT", slotText, "IMPORTING", idOf(from)})
               .startsWith('+') &&
           m_cluster.node(from)
               .command({"CLUSTER", "SETSLOT", slotText, "MIGRATING", idOf(to)})
               .startsWith('+') &&
           m_cluster.node(from)
               .command({"MIGRATE", "127.0.0.1", toPort, key, "0", "5000"})
               .startsWith('+');
}

void ClusterRouterTest::commandSlots()
{
    QCOMPARE(*commandSlot({"GET", "foo"}), std::optional<int>(keySlot("foo")));
    QCOMPARE(*commandSlot({"PING"}), std::optional<int>());
    QCOMPARE(*commandSlot({"EVALSHA", "abc", "2", "{u}:a", "{u}:b", "arg"}),
             std::optional<int>(keySlot("u")));
    QCOMPARE(*commandSlot({"EVALSHA", "abc", "0", "arg"}), std::optional<int>());
    QVERIFY(!commandSlot({"MSET", "a", "1", "b", "2"}));
    QCOMPARE(commandKeys({"MSET", "a", "1", "b", "2"}), (QList<QByteArray>{"a", "b"}));
}

void ClusterRouterTest::routesEveryKey()
{
    for (int i = 0; i < 300; ++i) {
        const QByteArray key = "key:" + QByteArray::number(i);
        QVERIFY(run({"SET", key, QByteArray::number(i)}));
        const auto value = run({"GET", key});
        QVERIFY2(value, qPrintable(value ? QString() : value.error().toString()));
        QCOMPARE(value->toBytes(), QByteArray::number(i));
        QCOMPARE(m_cluster.node(m_cluster.nodeOfKey(key)).port(),
                 m_router->slots().primaryForKey(key)->port);
    }
    QCOMPARE(m_router->redirects(), 0); // the map was right every time
    QVERIFY(run({"PING"}));
}

void ClusterRouterTest::refusesCrossSlotBeforeSending()
{
    const auto refused = run({"DEL", "a", "b"});
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind, ErrorKind::InvalidInput);
    QVERIFY(refused.error().message.contains(QStringLiteral("different cluster slots")));
    QVERIFY(run({"DEL", "{t}a", "{t}b"})); // one hash tag: one slot
}

void ClusterRouterTest::scriptRunsWhereItsKeysLive()
{
    const KeySchema schema;
    const QByteArray ban = schema.userBanKey("Zoë {x}"), audit = schema.userAuditKey("Zoë {x}");
    const auto reply = run({"EVAL",
                            "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('EXISTS', "
                            "KEYS[1], KEYS[2])",
                            "2", ban, audit, "1"});
    QVERIFY2(reply, qPrintable(reply ? QString() : reply.error().toString()));
    QCOMPARE(reply->integer, qint64(1));
    QVERIFY(run({"DEL", ban}));
}

void ClusterRouterTest::eventsOncePerMessage()
{
    for (int n = 0; n < m_cluster.size(); ++n)
        QVERIFY(m_cluster.node(n)
                    .command({"CONFIG", "SET", "notify-keyspace-events", "K$"})
                    .startsWith('+'));
    ClusterEvents events(*ConnectionOptions::fromUrl(m_cluster.seedUrl()), "tg:events",
                         "__keyspace@0__:tg:{*");
    QMap<QByteArray, int> keyspace;
    int published = 0;
    connect(&events, &ClusterEvents::messageReceived, this,
            [&](const QByteArray& channel, const QByteArray&, const QByteArray& pattern) {
                if (pattern.isEmpty())
                    ++published;
                else
                    ++keyspace[channel];
            });
    events.follow(m_router->slots());
    QCOMPARE(int(events.keyspaceNodes().size()), 3);
    QVERIFY(!events.eventsNode().isEmpty());
    // Subscriptions are asynchronous: publish until one arrives, then count from zero.
    const auto probe = [&] {
        return run({"PUBLISH", "tg:events", "probe"}).ok() &&
               QTest::qWaitFor([&] { return published > 0; }, 200);
    };
    QTRY_VERIFY_WITH_TIMEOUT(probe(), 10'000);
    QTest::qWait(200);
    published = 0;
    keyspace.clear();

    for (int i = 0; i < 30; ++i) // spread over every primary
        QVERIFY(run({"SET", "tg:{u" + QByteArray::number(i) + "}:x", "1"}));
    QVERIFY(run({"PUBLISH", "tg:events", "ban\n1\nulike"}));
    QTRY_COMPARE(keyspace.size(), 30);
    QTRY_COMPARE(published, 1);
    QTest::qWait(300); // nothing arrives twice
    QCOMPARE(published, 1);
    for (int count : std::as_const(keyspace))
        QCOMPARE(count, 1);
}

void ClusterRouterTest::cliShowsEveryNode()
{
    using namespace tollgate::test;
    const CliRun json = runCli(tollgatectlPath(), m_cluster.seedUrl(),
                               {QStringLiteral("--json"), QStringLiteral("cluster")});
    QCOMPARE(json.code, 0);
    const QJsonObject out = json.object();
    QVERIFY2(out.value(QLatin1String("cluster")).toBool(), qPrintable(json.describe()));
    QVERIFY(out.value(QLatin1String("all_slots_served")).toBool());
    int slots = 0;
    for (const QJsonValue node : out.value(QLatin1String("nodes")).toArray())
        slots += node.toObject().value(QLatin1String("slots")).toInt();
    QCOMPARE(out.value(QLatin1String("nodes")).toArray().size(), 3);
    QCOMPARE(slots, kClusterSlots);
    QVERIFY(out.value(QLatin1String("primaries_total"))
                .toObject()
                .value(QLatin1String("keys"))
                .toInt() > 0);

    const CliRun table =
        runCli(tollgatectlPath(), m_cluster.seedUrl(), {QStringLiteral("cluster")});
    QCOMPARE(table.code, 0);
    QVERIFY2(table.out.contains("primary") && table.out.contains("total"),
             qPrintable(table.describe()));

    RedisServer standalone;
    TOLLGATE_REQUIRE(standalone, start());
    const CliRun single = runCli(tollgatectlPath(), standalone.url(),
                                 {QStringLiteral("--json"), QStringLiteral("cluster")});
    QCOMPARE(single.code, 0);
    QCOMPARE(single.object().value(QLatin1String("cluster")).toBool(true), false);
}

void ClusterRouterTest::followsMoved()
{
    const QByteArray key = "moving";
    QVERIFY(run({"SET", key, "v"}));
    const int slot = keySlot(key);
    const int from = nodeAt(m_router->slots().primaryFor(slot)->port);
    const int to = (from + 1) % m_cluster.size();
    // Move the slot (and its key) the way redis-cli --cluster reshard does.
    QVERIFY(beginMigration(slot, from, to, key));
    for (int n = 0; n < m_cluster.size(); ++n)
        m_cluster.node(n).command(
            {"CLUSTER", "SETSLOT", QByteArray::number(slot), "NODE", idOf(to)});

    // The router still thinks `from` owns it: MOVED, followed, and the map learns.
    const int before = m_router->redirects();
    const auto value = run({"GET", key});
    QVERIFY2(value, qPrintable(value ? QString() : value.error().toString()));
    QCOMPARE(value->toBytes(), QByteArray("v"));
    QCOMPARE(m_router->redirects(), before + 1);
    QTRY_COMPARE(m_router->slots().primaryFor(slot)->port, m_cluster.node(to).port());
    QVERIFY(run({"GET", key}));
    QCOMPARE(m_router->redirects(), before + 1); // no second redirection
}

void ClusterRouterTest::followsAskDuringMigration()
{
    const QByteArray key = "asking", other = "{asking}stays";
    QVERIFY(run({"SET", key, "moved-already"}));
    QVERIFY(run({"SET", other, "not-yet"}));
    const int slot = keySlot(key);
    QCOMPARE(keySlot(other), slot);
    const int from = nodeAt(m_router->slots().primaryFor(slot)->port);
    const int to = (from + 1) % m_cluster.size();
    QVERIFY(beginMigration(slot, from, to, key));

    // Mid-migration: the moved key is answered by `to` after ASKING, the other one by `from`.
    const int before = m_router->redirects();
    const auto moved = run({"GET", key});
    QVERIFY2(moved, qPrintable(moved ? QString() : moved.error().toString()));
    QCOMPARE(moved->toBytes(), QByteArray("moved-already"));
    QCOMPARE(m_router->redirects(), before + 1);
    QCOMPARE(m_router->slots().primaryFor(slot)->port, m_cluster.node(from).port()); // unchanged
    const auto stays = run({"GET", other});
    QVERIFY(stays);
    QCOMPARE(stays->toBytes(), QByteArray("not-yet"));
}

QTEST_GUILESS_MAIN(ClusterRouterTest)
#include "tst_ClusterRouter.moc"
