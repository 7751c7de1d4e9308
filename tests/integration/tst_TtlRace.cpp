// The problem Tollgate is built around (README.md "The failure it prevents"): a rate-limit
// counter written with two commands can be left without a TTL when the key expires between them,
// and then never expires.
// Both halves are asserted under the same load: the naive two-command client does leave such
// keys (so the test can fail), hit.lua never does.

#include "tests/support/CoreFixture.h"

#include <QtTest>
#include <atomic>

using namespace tollgate;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

namespace {

constexpr int kConnections = 4;
constexpr int kInFlightPerConnection = 32; // pipelined operations per connection
constexpr int kWindowMs = 5;

// Load shared by every connection's callbacks (they run on the connections' worker threads).
struct Load
{
    std::atomic<bool> stop{false};
    std::atomic<int> inFlight{0};
    std::atomic<qint64> operations{0};
    std::atomic<qint64> errors{0};
    std::atomic<qint64> denied{0};
    std::atomic<quint64> sequence{0};
};

} // namespace

class TtlRaceTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void naiveTwoCommandsLeaveKeysWithoutTtl();
    void scriptsNeverLeaveKeysWithoutTtl();
    void cleanup();

private:
    // Keys matching `pattern` whose PTTL is -1 (exist, no expiry), found with SCAN.
    qint64 keysWithoutTtl(const QByteArray& pattern);
    bool openConnections();

    CoreFixture m_core;
    std::vector<std::unique_ptr<Client>> m_clients;
    Load* m_load = nullptr;
};

void TtlRaceTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void TtlRaceTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
    QVERIFY2(openConnections(), qPrintable(m_core.errorString()));
}

bool TtlRaceTest::openConnections()
{
    m_clients.clear();
    for (int i = 0; i < kConnections; ++i) {
        auto client = m_core.connect(m_core.options());
        if (!client)
            return false;
        m_clients.push_back(std::move(client));
    }
    return true;
}

void TtlRaceTest::cleanup()
{
    if (m_load) {
        m_load->stop = true;
        QTRY_COMPARE_WITH_TIMEOUT(m_load->inFlight.load(), 0, 10000);
    }
    m_clients.clear(); // joins the worker threads: no callback can touch m_load afterwards
    delete m_load;
    m_load = nullptr;
}

qint64 TtlRaceTest::keysWithoutTtl(const QByteArray& pattern)
{
    qint64 found = 0;
    QByteArray cursor("0");
    do {
        const auto page = m_core.inspect({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
        if (!page || page->elements.size() != 2)
            return -1;
        cursor = page->elements[0].toBytes();
        for (const Reply& key : page->elements[1].elements) {
            if (m_core.pttl(key.toBytes()) == -1)
                ++found;
        }
    } while (cursor != "0");
    return found;
}

void TtlRaceTest::naiveTwoCommandsLeaveKeysWithoutTtl()
{
    // The classic quota: "SET k <limit> NX PX <window>" creates the window, then "DECR k" spends
    // one unit. When k expires after SET NX saw it (and did nothing) but before DECR, DECR
    // recreates k without a TTL: the quota never resets. A few hot keys, several pipelined
    // connections, 5 ms windows: the gap is hit within moments.
    m_load = new Load;
    Load* load = m_load;
    std::function<void(Client*)> pump = [load, &pump](Client* client) {
        if (load->stop)
            return;
        const QByteArray key = "naive:{" + QByteArray::number(load->sequence++ % 4) + '}';
        load->inFlight += 2;
        client->execute({"SET", key, "100", "NX", "PX", QByteArray::number(kWindowMs)}, nullptr,
                        [load](Result<Reply> r) {
                            if (!r)
                                ++load->errors;
                            --load->inFlight;
                        });
        client->execute({"DECR", key}, nullptr, [load, client, &pump](Result<Reply> r) {
            if (!r)
                ++load->errors;
            ++load->operations;
            --load->inFlight;
            pump(client);
        });
    };
    for (auto& client : m_clients) {
        for (int i = 0; i < kInFlightPerConnection; ++i)
            pump(client.get());
    }

    // Stops as soon as an orphan exists (usually within milliseconds), at most after 5 s.
    QTRY_VERIFY_WITH_TIMEOUT(keysWithoutTtl("naive:*") > 0, 5000);
    load->stop = true;
    QTRY_COMPARE_WITH_TIMEOUT(load->inFlight.load(), 0, 10000);
    QCOMPARE(load->errors.load(), qint64(0));

    // And they stay: long after every window should have ended, the counters are still there.
    const qint64 orphans = keysWithoutTtl("naive:*");
    QTest::qWait(50);
    QVERIFY(orphans > 0);
    QCOMPARE(keysWithoutTtl("naive:*"), orphans);
    qInfo("naive client: %lld keys without TTL after %lld operations", orphans,
          load->operations.load());
}

void TtlRaceTest::scriptsNeverLeaveKeysWithoutTtl()
{
    // The same load through hit.lua: fixed windows of 5 ms, a low limit so hits are denied too,
    // on a few hot users, for three seconds.
    m_load = new Load;
    Load* load = m_load;
    const Policy policy = makePolicy("race", 3, kWindowMs);
    QVERIFY(policy.validate().ok());
    std::vector<std::unique_ptr<Limiter>> limiters;
    for (auto& client : m_clients)
        limiters.push_back(std::make_unique<Limiter>(client.get(), m_core.schema()));

    std::function<void(Limiter*)> pump = [load, &policy, &pump](Limiter* limiter) {
        if (load->stop)
            return;
        const QByteArray user = QByteArray::number(load->sequence++ % 4);
        ++load->inFlight;
        limiter->hit(policy, user, 0, nullptr, [load, limiter, &pump](Result<HitResult> r) {
            if (!r)
                ++load->errors;
            else if (!r->allowed)
                ++load->denied;
            ++load->operations;
            --load->inFlight;
            pump(limiter);
        });
    };
    for (auto& limiter : limiters) {
        for (int i = 0; i < kInFlightPerConnection; ++i)
            pump(limiter.get());
    }

    QElapsedTimer clock;
    clock.start();
    qint64 worst = 0;
    while (clock.elapsed() < 3000) {
        QTest::qWait(100);
        worst = qMax(worst, keysWithoutTtl("tg:*"));
    }
    load->stop = true;
    QTRY_COMPARE_WITH_TIMEOUT(load->inFlight.load(), 0, 10000);

    QCOMPARE(load->errors.load(), qint64(0));
    QVERIFY2(load->operations > 1000, qPrintable(QString::number(load->operations)));
    QVERIFY(load->denied > 0);   // windows filled up
    QCOMPARE(worst, qint64(0));  // never, while the load ran
    QCOMPARE(keysWithoutTtl("tg:*"), qint64(0));
    qInfo("scripts: %lld hits (%lld denied), no key without TTL", load->operations.load(),
          load->denied.load());
    // The windows really were 5 ms: everything is gone shortly after the load.
    QTRY_COMPARE_WITH_TIMEOUT(m_core.dbsize(), qint64(0), 2000);
}

QTEST_GUILESS_MAIN(TtlRaceTest)
#include "tst_TtlRace.moc"
