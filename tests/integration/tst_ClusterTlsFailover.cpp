// Failovers of a TLS cluster (three primaries with a replica each; TLS for clients, the cluster
// bus and replication) seen through a rediss:// seed: a manual CLUSTER FAILOVER, then a killed
// primary, under load. Every write is answered (success or a clean error) within its
// deadline, writes and hits resume on the new primaries, and a scan afterwards lists every key
// exactly once. The same scenarios as tst_ClusterClient's on a plain cluster (tests/support/
// ClusterLoad), where a TLS node dialled on the wrong port or without the seed's certificates
// would only time out.

#include "core/client/Scan.h"
#include "core/cluster/ClusterScan.h"
#include "tests/support/ClusterLoad.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/TlsCertificates.h"
#include "tollgate/Limiter.h"

#include <QSignalSpy>
#include <QtTest>
#include <set>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::RedisCluster;

class ClusterTlsFailoverTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void manualFailover();
    void killedPrimary();
    void hitsOnEveryPrimary();
    void scanListsEveryKeyOnce();

private:
    test::TlsCertificates m_certs;
    RedisCluster m_cluster;
    std::unique_ptr<Client> m_client;
    QList<QByteArray> m_keys; // written before the failovers, replicated
};

void ClusterTlsFailoverTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_certs, generate());
    TOLLGATE_REQUIRE(m_cluster, start(3, 1, &m_certs.files()));
    m_client = test::openClient(m_cluster.tlsSeedUrl() + QStringLiteral("&timeout=2000"));
    QVERIFY(m_client->options().tls.enabled);
    QVERIFY(m_client->isCluster());
    for (int i = 0; i < 3000; ++i)
        m_keys << "tg:{tls-scan-" + QByteArray::number(i) + "}:like:fw:60000";
    QVERIFY(test::writeOnOwners(m_cluster, m_keys));
}

void ClusterTlsFailoverTest::manualFailover()
{
    QVERIFY(test::manualFailoverUnderLoad(m_cluster, m_client.get(), "tg:{tls-failover}:x"));
}

void ClusterTlsFailoverTest::killedPrimary()
{
    const QByteArray key = test::keyAwayFromSeed(m_cluster, "tg:{tls-killed-");
    QVERIFY(!key.isEmpty());
    QVERIFY(test::killedPrimaryUnderLoad(m_cluster, m_client.get(), key));
}

void ClusterTlsFailoverTest::hitsOnEveryPrimary()
{
    // hit.lua on a user of each primary there is now, the promoted ones included.
    const KeySchema schema;
    const Limiter limiter(m_client.get(), schema);
    const Policy policy = test::makePolicy("like", 5, 60'000);
    std::set<int> owners;
    for (int i = 0; owners.size() < 3 && i < 1000; ++i) {
        const QByteArray user = "tls-hit-" + QByteArray::number(i);
        const int owner = m_cluster.nodeOfKey(schema.userAuditKey(user));
        if (owner < 0 || owners.count(owner))
            continue;
        owners.insert(owner);
        auto hit = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
            limiter.hit(policy, user, 0, context, std::move(done));
        });
        QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
        QVERIFY(hit->decidedBy == DecidedBy::Redis);
        QVERIFY(hit->allowed);
        QCOMPARE(hit->count, qint64(1));
        // Counted on the owner itself, with its TTL.
        const QByteArray key = schema.stateKey(user, "like", Algorithm::FixedWindow, 60'000);
        const QByteArray pttl = m_cluster.node(owner).command({"PTTL", key});
        QVERIFY2(pttl.startsWith(':') && pttl.mid(1).trimmed().toLongLong() > 0, pttl.constData());
    }
    QCOMPARE(owners.size(), size_t(3));
}

void ClusterTlsFailoverTest::scanListsEveryKeyOnce()
{
    const std::multiset<QByteArray> expected(m_keys.begin(), m_keys.end());
    ScanOptions options;
    options.pattern = "tg:{tls-scan-*";
    options.count = 100;

    // Through the client (its router's TLS connections) ...
    std::optional<Result<QList<QByteArray>>> keys;
    QObject context;
    collectKeys(m_client.get(), options, &context,
                [&](Result<QList<QByteArray>> r) { keys = std::move(r); });
    QTRY_VERIFY_WITH_TIMEOUT(keys.has_value(), 60'000);
    QVERIFY2(*keys, qPrintable(*keys ? QString() : keys->error().toString()));
    QVERIFY(std::multiset<QByteArray>((*keys)->begin(), (*keys)->end()) == expected);

    // ... and on its own TLS connections from the seed.
    ClusterScan::Options own;
    own.scan = options;
    ClusterScan scan(m_client->options(), own);
    std::multiset<QByteArray> ownFound;
    QSignalSpy finished(&scan, &ClusterScan::finished);
    QSignalSpy failed(&scan, &ClusterScan::failed);
    QObject::connect(&scan, &ClusterScan::batch, [&](const QList<QByteArray>& keys) {
        ownFound.insert(keys.begin(), keys.end());
    });
    scan.start();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 60'000);
    QVERIFY(failed.isEmpty());
    QVERIFY(ownFound == expected);
}

QTEST_GUILESS_MAIN(ClusterTlsFailoverTest)
#include "tst_ClusterTlsFailover.moc"
