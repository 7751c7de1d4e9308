// SCAN over a real Redis Cluster (three primaries with a replica each): every key is found
// exactly once, and a primary killed in the middle of a scan costs no key: its replica takes
// over and the unfinished slots are scanned there.

#include "core/cluster/ClusterScan.h"
#include "core/cluster/NodeStats.h"
#include "core/cluster/Topology.h"
#include "tests/support/ClusterLoad.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"

#include <QSignalSpy>
#include <QtTest>
#include <set>

using namespace tollgate;
using tollgate::test::RedisCluster;
using tollgate::test::RedisServer;

// A scan of the fixture's user keys and what it reported, recorded as it runs.
struct ScanRecord
{
    ScanRecord(const ConnectionOptions& seed, int count, std::chrono::milliseconds pause)
        : scan(seed, options(count, pause)), finished(&scan, &ClusterScan::finished),
          failed(&scan, &ClusterScan::failed)
    {
        QObject::connect(&scan, &ClusterScan::batch, [this](const QList<QByteArray>& keys) {
            found.insert(keys.begin(), keys.end());
        });
        scan.start();
    }
    static ClusterScan::Options options(int count, std::chrono::milliseconds pause)
    {
        ClusterScan::Options options;
        options.scan.pattern = "tg:{*";
        options.scan.count = count;
        options.scan.pause = pause;
        return options;
    }
    bool over() const { return !finished.isEmpty() || !failed.isEmpty(); }
    QString error() const
    {
        return failed.isEmpty() ? QString() : failed.front().front().value<Error>().toString();
    }

    ClusterScan scan;
    std::multiset<QByteArray> found;
    QSignalSpy finished;
    QSignalSpy failed;
};

class ClusterScanTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void findsEveryKeyOnce();
    void refusesStandaloneServer();
    void statsSumOverPrimaries();
    void holdsWhileBatchesAreOut();
    void survivesFailoverMidScan();

private:
    // Writes `count` user keys, each on the node owning it, and waits until the replicas have them.
    void fill(int count);
    ConnectionOptions seed() const;

    RedisCluster m_cluster;
    std::set<QByteArray> m_keys;
};

void ClusterScanTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 1));
    fill(20'000);
}

ConnectionOptions ClusterScanTest::seed() const
{
    auto options = ConnectionOptions::fromUrl(m_cluster.seedUrl());
    return options ? *options : ConnectionOptions{};
}

void ClusterScanTest::fill(int count)
{
    QList<QByteArray> keys;
    for (int i = 0; i < count; ++i)
        keys << "tg:{u" + QByteArray::number(i) + "}:like:fw:60000";
    QVERIFY(test::writeOnOwners(m_cluster, keys));
    m_keys.insert(keys.begin(), keys.end());
}

void ClusterScanTest::findsEveryKeyOnce()
{
    ScanRecord run(seed(), 1000, std::chrono::milliseconds(0));
    QTRY_VERIFY_WITH_TIMEOUT(run.over(), 60'000);
    QVERIFY2(run.failed.isEmpty(), qPrintable(run.error()));
    QCOMPARE(run.finished.front().front().toLongLong(), qint64(m_keys.size()));
    QCOMPARE(run.found.size(), m_keys.size()); // no key twice
    QVERIFY(std::equal(run.found.begin(), run.found.end(), m_keys.begin(), m_keys.end()));
    QCOMPARE(run.scan.nodeScans(), 3);
}

void ClusterScanTest::refusesStandaloneServer()
{
    RedisServer standalone;
    TOLLGATE_REQUIRE(standalone, start());
    ClusterScan scan(*ConnectionOptions::fromUrl(standalone.url()), {});
    QSignalSpy failed(&scan, &ClusterScan::failed);
    scan.start();
    QTRY_VERIFY(!failed.isEmpty());
    const auto error = failed.front().front().value<Error>();
    QCOMPARE(error.kind, ErrorKind::InvalidInput);
    QVERIFY(error.message.contains(QStringLiteral("not a cluster")));
}

void ClusterScanTest::statsSumOverPrimaries()
{
    NodeClients clients(seed());
    std::optional<Result<ClusterStats>> sample;
    QObject context;
    sampleClusterStats(&clients, test::clusterTopology(m_cluster), &context,
                       [&](Result<ClusterStats> r) { sample = std::move(r); });
    QTRY_VERIFY(sample.has_value());
    QVERIFY(*sample);
    const ClusterStats& stats = **sample;
    QCOMPARE(stats.unreachable, 0);
    QCOMPARE(int(stats.nodes.size()), 6);
    QCOMPARE(std::count_if(stats.nodes.begin(), stats.nodes.end(),
                           [](const NodeStats& n) { return n.primary; }),
             3);
    QVERIFY(stats.nodes.front().primary);                       // primaries first
    QCOMPARE(stats.primariesTotal.keys, qint64(m_keys.size())); // replicas not counted twice
    QVERIFY(stats.primariesTotal.usedMemory > 0);
    QVERIFY(stats.primariesTotal.connectedClients >= 3);
}

void ClusterScanTest::holdsWhileBatchesAreOut()
{
    // At most two batches out: the handler keeps them until it holds two, then gives both back
    // a little later. A scan that ignored the bound would deliver more meanwhile (three nodes
    // answer at once).
    constexpr int kBound = 2;
    ClusterScan::Options options = ScanRecord::options(100, std::chrono::milliseconds(0));
    options.batchesOut = kBound;
    ClusterScan scan(seed(), options);
    QSignalSpy finished(&scan, &ClusterScan::finished);
    QSignalSpy failed(&scan, &ClusterScan::failed);
    std::multiset<QByteArray> found;
    int out = 0, peak = 0, batches = 0;
    QObject::connect(&scan, &ClusterScan::batch, [&](const QList<QByteArray>& keys) {
        found.insert(keys.begin(), keys.end());
        ++batches;
        peak = std::max(peak, ++out);
        if (out == kBound)
            QTimer::singleShot(20, &scan, [&] {
                for (; out > 0; --out)
                    scan.release();
            });
    });
    scan.start();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 120'000);
    QVERIFY(failed.isEmpty());
    QCOMPARE(peak, kBound);
    QVERIFY2(batches > 3 * kBound, "the bound must have held the scan back several times");
    QCOMPARE(found.size(), m_keys.size()); // no key twice
    QVERIFY(std::equal(found.begin(), found.end(), m_keys.begin(), m_keys.end()));
}

void ClusterScanTest::survivesFailoverMidScan()
{
    // A slow scan (10 keys per call, a pause between calls) so the kill lands in the middle.
    ScanRecord run(seed(), 10, std::chrono::milliseconds(2));
    QTRY_VERIFY(run.found.size() > 500);
    QVERIFY(!run.over());

    // Kill a primary that is not the seed; its replica is promoted after the node timeout.
    const SlotMap map = test::clusterTopology(m_cluster);
    int victim = -1;
    for (int n = 1; n < m_cluster.size() && victim < 0; ++n)
        for (const ClusterNode& primary : map.primaries())
            if (primary.port == m_cluster.node(n).port())
                victim = n;
    QVERIFY(victim > 0);
    m_cluster.node(victim).kill();

    QTRY_VERIFY_WITH_TIMEOUT(run.over(), 90'000);
    QVERIFY2(run.failed.isEmpty(), qPrintable(run.error()));
    const std::set<QByteArray> distinct(run.found.begin(), run.found.end());
    QCOMPARE(distinct.size(), m_keys.size()); // nothing lost
    QVERIFY(std::equal(distinct.begin(), distinct.end(), m_keys.begin(), m_keys.end()));
    // Repeats are bounded: at most the keys of the shard that failed, once.
    QVERIFY(run.found.size() - distinct.size() <= m_keys.size() / 2);
    QVERIFY(run.scan.nodeScans() >= 4); // the promoted replica was scanned too
}

QTEST_GUILESS_MAIN(ClusterScanTest)
#include "tst_ClusterScan.moc"
