// The client's view of a real Redis Cluster (three primaries with a replica each, started by the
// fixture): its key slots equal CLUSTER KEYSLOT for any id Tollgate accepts, the slot map read
// from CLUSTER SHARDS and from CLUSTER SLOTS agree, and the primary it names for a key is the
// node that serves that key without a MOVED.

#include "core/cluster/SlotMap.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QRandomGenerator>
#include <QtTest>

using namespace tollgate;
using tollgate::test::RedisCluster;

class ClusterTopologyTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void slotsMatchTheServer();
    void shardsAndSlotsAgree();
    void primaryServesItsKeys();
    void userKeysShareOneSlot();
    void movedSlotChangesOwner();

private:
    Result<Reply> ask(int node, const Command& command);
    // Odd ids of every kind Tollgate accepts, escaped into real keys.
    static QList<QByteArray> oddKeys();

    RedisCluster m_cluster;
    std::vector<std::unique_ptr<Client>> m_clients;
    SlotMap m_map;
};

void ClusterTopologyTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 1));
    for (int i = 0; i < m_cluster.size(); ++i) {
        auto options = ConnectionOptions::fromUrl(m_cluster.node(i).url());
        QVERIFY(options);
        auto client = std::make_unique<Client>(*options);
        client->open();
        QTRY_COMPARE(client->state(), ConnectionState::Connected);
        m_clients.push_back(std::move(client));
    }
    const auto shards = ask(0, {"CLUSTER", "SHARDS"});
    QVERIFY2(shards, qPrintable(shards ? QString() : shards.error().toString()));
    auto map = SlotMap::fromShards(*shards, QStringLiteral("127.0.0.1"));
    QVERIFY2(map, qPrintable(map ? QString() : map.error().toString()));
    m_map = *map;
}

Result<Reply> ClusterTopologyTest::ask(int node, const Command& command)
{
    return m_clients[size_t(node)]->executeSync(command);
}

QList<QByteArray> ClusterTopologyTest::oddKeys()
{
    const KeySchema schema;
    QList<QByteArray> keys;
    const QList<QByteArray> ids{"42",
                                "alice",
                                "Zoë 🙂",
                                "with space",
                                "a:b:c",
                                "{curly}",
                                "}{",
                                "*?[",
                                "line\nfeed",
                                QByteArray(1024, 'x'),
                                QByteArray("\xff\xfe", 2)};
    for (const QByteArray& id : ids) {
        keys << schema.userBanKey(id) << schema.userAuditKey(id)
             << schema.stateKey(id, "like", Algorithm::SlidingLog, 60'000);
    }
    auto* random = QRandomGenerator::global();
    for (int i = 0; i < 200; ++i) {
        QByteArray bytes(int(random->bounded(1, 40)), Qt::Uninitialized);
        for (char& c : bytes)
            c = char(random->bounded(256));
        keys << bytes << schema.userBanKey(bytes);
    }
    return keys;
}

void ClusterTopologyTest::slotsMatchTheServer()
{
    for (const QByteArray& key : oddKeys()) {
        const auto slot = ask(0, {"CLUSTER", "KEYSLOT", key});
        QVERIFY(slot);
        QCOMPARE(keySlot(key), int(slot->integer));
    }
}

void ClusterTopologyTest::shardsAndSlotsAgree()
{
    QVERIFY(m_map.coversAllSlots());
    QCOMPARE(int(m_map.primaries().size()), 3);
    const auto slots = ask(1, {"CLUSTER", "SLOTS"});
    QVERIFY(slots);
    const auto fromSlots = SlotMap::fromSlots(*slots, QStringLiteral("127.0.0.1"));
    QVERIFY2(fromSlots, qPrintable(fromSlots ? QString() : fromSlots.error().toString()));
    int owned = 0;
    for (int slot = 0; slot < kClusterSlots; ++slot) {
        QVERIFY(fromSlots->primaryFor(slot));
        QCOMPARE(fromSlots->primaryFor(slot)->address(), m_map.primaryFor(slot)->address());
        QCOMPARE(m_map.replicasFor(slot).size(), size_t(1));
        // CLUSTER SLOTS leaves out a replica 7.0 still calls "loading" (no write replicated
        // yet); CLUSTER SHARDS lists it with its health.
        if (!fromSlots->replicasFor(slot).empty())
            QCOMPARE(fromSlots->replicasFor(slot).front().address(),
                     m_map.replicasFor(slot).front().address());
    }
    for (const ClusterNode& primary : m_map.primaries()) {
        QVERIFY(!primary.id.isEmpty());
        owned += m_map.slotCount(primary.address());
    }
    QCOMPARE(owned, kClusterSlots);
}

void ClusterTopologyTest::primaryServesItsKeys()
{
    for (const QByteArray& key : oddKeys().mid(0, 60)) {
        const ClusterNode* primary = m_map.primaryForKey(key);
        QVERIFY(primary);
        const int serving = m_cluster.nodeOfKey(key);
        QVERIFY(serving >= 0);
        QCOMPARE(primary->port, m_cluster.node(serving).port());
    }
}

void ClusterTopologyTest::userKeysShareOneSlot()
{
    const KeySchema schema;
    for (const QByteArray& id :
         {QByteArray("Zoë 🙂"), QByteArray("{curly}"), QByteArray("a}b")}) {
        const int slot = keySlot(schema.userBanKey(id));
        QCOMPARE(keySlot(schema.userAuditKey(id)), slot);
        QCOMPARE(keySlot(schema.actionBanKey(id, "like")), slot);
        QCOMPARE(keySlot(schema.stateKey(id, "like", Algorithm::FixedWindow, 1000)), slot);
    }
}

void ClusterTopologyTest::movedSlotChangesOwner()
{
    SlotMap map = m_map;
    const int slot = keySlot("foo");
    const ClusterNode before = *map.primaryFor(slot);
    ClusterNode other;
    for (const ClusterNode& primary : map.primaries())
        if (!primary.sameAddress(before))
            other = primary;
    map.moveSlot(slot, other);
    QCOMPARE(map.primaryFor(slot)->address(), other.address());
    QCOMPARE(map.primaryFor(slot + 1 < kClusterSlots ? slot + 1 : slot - 1)->address(),
             m_map.primaryFor(slot + 1 < kClusterSlots ? slot + 1 : slot - 1)->address());
    QCOMPARE(int(map.primaries().size()), 3); // no node appears twice
}

QTEST_GUILESS_MAIN(ClusterTopologyTest)
#include "tst_ClusterTopology.moc"
