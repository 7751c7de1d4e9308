// core/limiter/HitStats: the console's statistics off the hot path. The figures the dashboard
// reads from <p>:stats:<action> equal the hits made; they are written at most once a second per
// action and once more when the client closes; a flush that fails never fails a hit; and
// stats.lua's added-up form checks its counts.
#include "core/limiter/HitStats.h"
#include "core/scripts/ScriptRunner.h"
#include "tests/support/CoreFixture.h"

#include <QElapsedTimer>
#include <QtTest>
#include <map>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

class HitStatsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void figuresEqualTheHits();
    void atMostOnceASecond();
    void flushesInTheMiddleOfASecond();
    void flushedWhenTheClientCloses();
    void failedFlushNeverFailsAHit();
    void countsAreChecked_data();
    void countsAreChecked();
    void historyHoldsSecondsAndMinutes();

private:
    struct Totals
    {
        qint64 hits = 0, cost = 0, warn = 0, denied = 0, banned = 0;
        int seconds = 0; // slots holding something
        qint64 firstSecond = 0, lastSecond = 0; // of those slots
        bool operator==(const Totals& o) const
        {
            return hits == o.hits && cost == o.cost && warn == o.warn && denied == o.denied &&
                   banned == o.banned;
        }
    };
    // Every slot of the ring, as the dashboard reads them (ui/dashboard/StatsSampler).
    Totals totals(const QByteArray& action)
    {
        Totals t;
        auto all = m_core.inspect({"HGETALL", m_core.schema().statsKey(action)});
        if (!all)
            return t;
        const auto pairs = all->toPairs();
        const std::map<QByteArray, QByteArray> values(pairs.begin(), pairs.end());
        for (const auto& [field, value] : pairs) {
            const qint64 n = value.toLongLong();
            if (field.startsWith("total:"))
                continue; // the exporter's running totals, not a slot of the ring
            if (field.endsWith(":h")) {
                t.hits += n;
                t.seconds += n > 0 ? 1 : 0;
                const auto held = values.find(field.chopped(1) + 't');
                const qint64 second = held == values.end() ? 0 : held->second.toLongLong();
                if (n > 0 && (t.firstSecond == 0 || second < t.firstSecond))
                    t.firstSecond = second;
                t.lastSecond = n > 0 ? std::max(t.lastSecond, second) : t.lastSecond;
            } else if (field.endsWith(":c")) {
                t.cost += n;
            } else if (field.endsWith(":w")) {
                t.warn += n;
            } else if (field.endsWith(":d")) {
                t.denied += n;
            } else if (field.endsWith(":b")) {
                t.banned += n;
            }
        }
        return t;
    }
    Result<HitResult> hit(const Limiter& limiter, const Policy& policy, const QByteArray& user,
                          qint64 cost = 0)
    {
        return await<HitResult>([&](QObject* c, Callback<HitResult> done) {
            limiter.hit(policy, user, cost, c, std::move(done));
        });
    }

    CoreFixture m_core;
};

void HitStatsTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void HitStatsTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

void HitStatsTest::figuresEqualTheHits()
{
    Limiter limiter(m_core.client(), m_core.schema());
    limiter.setRecordStats(true);
    Policy policy = makePolicy("like", 4, 60000);
    policy.warn = 2;
    Policy banning = makePolicy("post", 1, 60000);
    banning.banMs = 60000;
    Totals expected, expectedPost;
    for (const QByteArray& user : {QByteArray("a"), QByteArray("b")})
        for (int i = 0; i < 6; ++i) {
            auto r = hit(limiter, policy, user, 2);
            QVERIFY(r.ok());
            ++expected.hits;
            expected.cost += 2;
            expected.warn += r->tier == Tier::Warn ? 1 : 0;
            expected.denied += r->allowed ? 0 : 1;
        }
    for (int i = 0; i < 3; ++i) {
        auto r = hit(limiter, banning, "c");
        QVERIFY(r.ok());
        ++expectedPost.hits;
        ++expectedPost.cost;
        expectedPost.denied += r->allowed ? 0 : 1;
        expectedPost.banned += r->tier == Tier::Banned ? 1 : 0;
    }
    // A peek counts nothing, in Redis or in the statistics.
    QVERIFY(await<HitResult>([&](QObject* c, Callback<HitResult> done) {
                limiter.peek(policy, "a", 0, c, std::move(done));
            }).ok());
    // Every figure is exercised: warnings, denials, bans.
    QVERIFY(expected.warn > 0 && expected.denied > 0 && expectedPost.banned > 0);
    QTRY_VERIFY_WITH_TIMEOUT(totals("like") == expected, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(totals("post") == expectedPost, 5000);
    QTest::qWait(1200); // nothing more arrives later
    QVERIFY(totals("like") == expected);
}

void HitStatsTest::atMostOnceASecond()
{
    auto client = m_core.connect(m_core.options());
    QVERIFY2(client, qPrintable(m_core.errorString()));
    Limiter limiter(client.get(), m_core.schema());
    limiter.setRecordStats(true);
    const auto stats = HitStats::of(client.get(), m_core.schema());
    const Policy policy = makePolicy("view", 1'000'000, 60000);
    QElapsedTimer clock;
    clock.start();
    qint64 hits = 0;
    while (clock.elapsed() < 3200) {
        QVERIFY(hit(limiter, policy, "u" + QByteArray::number(hits % 7)).ok());
        ++hits;
        QTest::qWait(5);
    }
    QTRY_COMPARE_WITH_TIMEOUT(totals("view").hits, hits, 5000);
    const double untilLastFlush = double(clock.elapsed()) / 1000.0;
    // A flush a second at most (per client, so per action too): n flushes span n - 1 seconds
    // or more. Each one lands in its own server second.
    const quint64 flushes = stats->flushCount();
    QVERIFY2(flushes >= 3 && double(flushes) <= untilLastFlush + 1.0,
             qPrintable(QStringLiteral("%1 flushes in %2 s").arg(flushes).arg(untilLastFlush)));
    QCOMPARE(totals("view").seconds, int(flushes));
    // Flushes in the middle of each second: under steady traffic no second of the ring is
    // skipped (a chart would drop to 0 there, and show the next second twice).
    const Totals t = totals("view");
    QCOMPARE(t.lastSecond - t.firstSecond + 1, qint64(t.seconds));
}

void HitStatsTest::flushesInTheMiddleOfASecond()
{
    QCOMPARE(HitStats::untilMidSecond(0).count(), 500);
    QCOMPARE(HitStats::untilMidSecond(499).count(), 1);
    QCOMPARE(HitStats::untilMidSecond(500).count(), 1000); // one just went: the next second's
    QCOMPARE(HitStats::untilMidSecond(501).count(), 999);
    QCOMPARE(HitStats::untilMidSecond(1'700'000'000'999).count(), 501);
}

void HitStatsTest::flushedWhenTheClientCloses()
{
    auto client = m_core.connect(m_core.options());
    QVERIFY2(client, qPrintable(m_core.errorString()));
    // Just after the middle of a second, so the next timed flush is almost a second away.
    QTRY_VERIFY_WITH_TIMEOUT(HitStats::untilMidSecond(QDateTime::currentMSecsSinceEpoch()).count() > 900, 2000);
    {
        Limiter limiter(client.get(), m_core.schema());
        limiter.setRecordStats(true);
        for (int i = 0; i < 3; ++i)
            QVERIFY(hit(limiter, makePolicy("share", 10, 60000), "u").ok());
    }
    QCOMPARE(totals("share").hits, qint64(0)); // well before the timed flush
    client.reset();                            // closes: the last flush leaves first
    QTRY_COMPARE_WITH_TIMEOUT(totals("share").hits, qint64(3), 5000);
}

void HitStatsTest::failedFlushNeverFailsAHit()
{
    // A stats key of the wrong type makes every flush fail; the hits go on regardless.
    QVERIFY(m_core.inspect({"SET", m_core.schema().statsKey("like"), "not a hash"}).ok());
    Limiter limiter(m_core.client(), m_core.schema());
    limiter.setRecordStats(true);
    const Policy policy = makePolicy("like", 100, 60000);
    for (int i = 0; i < 5; ++i)
        QVERIFY(hit(limiter, policy, "u").ok());
    QTest::qWait(1300);
    auto last = hit(limiter, policy, "u");
    QVERIFY(last.ok());
    QCOMPARE(last->count, qint64(6));
    QCOMPARE(m_core.bytes({"GET", m_core.schema().statsKey("like")}), QByteArray("not a hash"));
}

void HitStatsTest::countsAreChecked_data()
{
    QTest::addColumn<Command>("args");
    QTest::addColumn<bool>("valid");
    QTest::newRow("one hit") << Command{"warn", "3"} << true;
    QTest::newRow("counts") << Command{"counts", "10", "20", "2", "3", "1"} << true;
    QTest::newRow("zero hits") << Command{"counts", "0", "0", "0", "0", "0"} << true;
    QTest::newRow("more denied than hits") << Command{"counts", "2", "2", "0", "3", "0"} << false;
    QTest::newRow("warn and denied above hits")
        << Command{"counts", "2", "2", "1", "2", "0"} << false;
    QTest::newRow("banned above denied") << Command{"counts", "5", "5", "0", "1", "2"} << false;
    QTest::newRow("negative") << Command{"counts", "-1", "0", "0", "0", "0"} << false;
    QTest::newRow("missing") << Command{"counts", "1", "1"} << false;
    QTest::newRow("bad tier") << Command{"meh", "1"} << false;
    // The exporter's ban counters: automatic bans come with denies, manual ones alone.
    QTest::newRow("automatic bans") << Command{"counts", "5", "5", "0", "3", "1", "2"} << true;
    QTest::newRow("automatic bans above denies")
        << Command{"counts", "5", "5", "0", "3", "1", "3"} << false;
    QTest::newRow("manual ban alone") << Command{"counts", "0", "0", "0", "0", "0", "0", "1"} << true;
    QTest::newRow("manual bans not a number")
        << Command{"counts", "0", "0", "0", "0", "0", "0", "x"} << false;
}

void HitStatsTest::countsAreChecked()
{
    QFETCH(Command, args);
    QFETCH(bool, valid);
    const QByteArray key = m_core.schema().statsKey("checked");
    auto reply = await<Reply>([&](QObject* c, Callback<Reply> done) {
        runScript(m_core.client(), QStringLiteral("stats"), {key}, args, c, std::move(done));
    });
    QCOMPARE(reply.ok(), valid);
    if (!valid) {
        QCOMPARE(reply.error().kind, ErrorKind::InvalidInput);
        QCOMPARE(m_core.integer({"EXISTS", key}), qint64(0));
    }
}

void HitStatsTest::historyHoldsSecondsAndMinutes()
{
    // Every field of both history rings first holds an ancient second or minute: the call
    // restarts the one it lands in instead of adding to it.
    const QByteArray key = m_core.schema().statsKey("history");
    Command seed{"HSET", key};
    for (int slot = 0; slot < 300; ++slot)
        seed << "s" + QByteArray::number(slot) << "1 9 9 9 9 9";
    for (int slot = 0; slot < 1440; ++slot)
        seed << "m" + QByteArray::number(slot) << "1 9 9 9 9 9";
    QVERIFY(m_core.inspect(seed).ok());
    const auto call = [&](QList<QByteArray> counts) {
        counts.prepend("counts");
        auto reply = await<Reply>([&](QObject* c, Callback<Reply> done) {
            runScript(m_core.client(), QStringLiteral("stats"), {key}, counts, c, std::move(done));
        });
        return reply.ok() ? reply->integer : qint64(-1);
    };
    const qint64 first = call({"5", "7", "2", "1", "0"});
    const qint64 second = call({"3", "3", "0", "3", "1"});
    QVERIFY(first > 0 && second >= first);
    const auto field = [&](const QByteArray& name) { return m_core.bytes({"HGET", key, name}); };
    // -> QByteArray: returning the QStringBuilder would leave it pointing at a dead number.
    const auto secondField = [](qint64 s) -> QByteArray {
        return "s" + QByteArray::number(s % 300);
    };
    const auto minuteField = [](qint64 s) -> QByteArray {
        return "m" + QByteArray::number(s / 60 % 1440);
    };
    if (first == second) {
        QCOMPARE(field(secondField(first)), QByteArray::number(first) + " 8 10 2 4 1");
    } else {
        QCOMPARE(field(secondField(first)), QByteArray::number(first) + " 5 7 2 1 0");
        QCOMPARE(field(secondField(second)), QByteArray::number(second) + " 3 3 0 3 1");
    }
    if (first / 60 == second / 60) {
        QCOMPARE(field(minuteField(first)), QByteArray::number(first / 60) + " 8 10 2 4 1");
    } else {
        QCOMPARE(field(minuteField(first)), QByteArray::number(first / 60) + " 5 7 2 1 0");
        QCOMPARE(field(minuteField(second)), QByteArray::number(second / 60) + " 3 3 0 3 1");
    }
    // The other fields are left alone; the key lives a day and an hour.
    QCOMPARE(field(secondField(first + 150)), QByteArray("1 9 9 9 9 9"));
    const auto ttl = m_core.inspect({"PTTL", key});
    QVERIFY(ttl && ttl->integer > 24 * 3'600'000);
}

QTEST_GUILESS_MAIN(HitStatsTest)
#include "tst_HitStats.moc"
