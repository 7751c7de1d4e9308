// The demo's traffic follows the stored policies: an operator who edits, adds or deletes a
// policy in the console sees the traffic change, instead of the start-up copy being hit forever.

#include "app/demo/DemoTraffic.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

class DemoTrafficTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void seedsADayOfHistory();
    void seededHistoryMeetsLiveTraffic();
    void followsPolicyEdits();

private:
    const Policy* find(const DemoTraffic& traffic, const QByteArray& action);
    bool hasTraffic(const QByteArray& action);

    CoreFixture m_core;
};

void DemoTrafficTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

const Policy* DemoTrafficTest::find(const DemoTraffic& traffic, const QByteArray& action)
{
    for (const Policy& policy : traffic.policies())
        if (policy.action == action)
            return &policy;
    return nullptr;
}

bool DemoTrafficTest::hasTraffic(const QByteArray& action)
{
    // The demo records console statistics with every hit (stats.lua): <p>:stats:<action>.
    return m_core.integer({"EXISTS", "tg:stats:" + action}) == 1;
}

void DemoTrafficTest::seedsADayOfHistory()
{
    // A minute a real client wrote (stats.lua's layout) before the demo started.
    const auto time = m_core.inspect({"TIME"});
    QVERIFY(time && !time->elements.empty());
    const qint64 minute = time->elements[0].toInteger().value_or(0) / 60;
    // -> QByteArray: returning the QStringBuilder would leave it pointing at a dead number.
    const auto field = [](qint64 m) -> QByteArray { return "m" + QByteArray::number(m % 1440); };
    const QByteArray real = QByteArray::number(minute - 3) + " 1 1 0 0 0";
    QVERIFY(m_core.inspect({"HSET", "tg:stats:comment", field(minute - 3), real}).ok());

    DemoTraffic traffic(m_core.options(), m_core.schema());
    QSignalSpy started(&traffic, &DemoTraffic::started);
    traffic.start();
    QVERIFY(started.wait(10000));
    // Every minute of the last day has figures in stats.lua's layout; the real one stays.
    for (const qint64 ago : {10, 600, 1400}) {
        QTRY_VERIFY(!m_core.bytes({"HGET", "tg:stats:comment", field(minute - ago)}).isEmpty());
        const QList<QByteArray> parts =
            m_core.bytes({"HGET", "tg:stats:comment", field(minute - ago)}).split(' ');
        QCOMPARE(parts.size(), 6);
        QCOMPARE(parts[0].toLongLong(), minute - ago);
        QVERIFY(parts[1].toLongLong() > 0);
    }
    QCOMPARE(m_core.bytes({"HGET", "tg:stats:comment", field(minute - 3)}), real);
    QVERIFY(m_core.integer({"PTTL", "tg:stats:comment"}) > 24 * 3'600'000);
    traffic.stop();
}

void DemoTrafficTest::seededHistoryMeetsLiveTraffic()
{
    // A prefix of its own: the test above left a history there, which HSETNX would keep.
    const KeySchema schema(QByteArrayLiteral("seam"));
    const auto serverSecond = [this] {
        const auto time = m_core.inspect({"TIME"});
        return time && !time->elements.empty() ? time->elements[0].toInteger().value_or(0) : 0;
    };
    const qint64 start = serverSecond();
    DemoTraffic traffic(m_core.options(), schema);
    QSignalSpy started(&traffic, &DemoTraffic::started);
    traffic.start();
    QVERIFY(started.wait(10000));
    QTest::qWait(8000);
    const qint64 end = serverSecond();
    traffic.stop();

    // Every second of "view", seeded or live, has hits, and the live ones go on at the seeded
    // level: no drop to 0 and no step where they meet (denials included).
    double seeded[2] = {0, 0}, live[2] = {0, 0};
    int seededSeconds = 0, liveSeconds = 0;
    for (qint64 at = start - 20; at < end; ++at) {
        const QList<QByteArray> parts =
            m_core.bytes({"HGET", "seam:stats:view", "s" + QByteArray::number(at % 300)})
                .split(' ');
        const bool held = parts.size() >= 6 && parts[0].toLongLong() == at;
        QVERIFY2(held && parts[1].toLongLong() > 0,
                 qPrintable(QStringLiteral("no hits %1 s from the start").arg(at - start)));
        double* sum = at < start ? seeded : at >= start + 3 ? live : nullptr;
        if (!sum)
            continue;
        sum[0] += double(parts[1].toLongLong());
        sum[1] += double(parts[4].toLongLong());
        ++(at < start ? seededSeconds : liveSeconds);
    }
    QVERIFY(liveSeconds >= 3);
    for (int figure : {0, 1}) {
        const double ratio = (live[figure] / liveSeconds) / (seeded[figure] / seededSeconds);
        QVERIFY2(
            ratio > 0.6 && ratio < 1.6,
            qPrintable(QStringLiteral("%1: live %2/s, seeded %3/s")
                           .arg(figure == 0 ? QStringLiteral("hits") : QStringLiteral("denied"))
                           .arg(live[figure] / liveSeconds)
                           .arg(seeded[figure] / seededSeconds)));
    }
}

void DemoTrafficTest::followsPolicyEdits()
{
    DemoTraffic::Options options;
    options.ordinaryUsers = 50;
    options.policyReload = std::chrono::milliseconds(200);
    DemoTraffic traffic(m_core.options(), m_core.schema(), options);
    QSignalSpy started(&traffic, &DemoTraffic::started);
    traffic.start();
    QVERIFY(started.wait(10000));
    QVERIFY(find(traffic, "comment"));
    QCOMPARE(find(traffic, "comment")->windows.front().limit, 10);

    // An edit: the traffic hits with the new limit.
    Result<Policy> comment = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("comment", context, std::move(done));
    });
    QVERIFY(comment);
    Policy lower = *comment;
    lower.windows.front().limit = 2;
    QVERIFY(m_core.save(lower));
    QTRY_COMPARE_WITH_TIMEOUT(
        find(traffic, "comment") ? find(traffic, "comment")->windows.front().limit : -1, 2, 5000);

    // A new action gets traffic of its own: the first random click on it, later on a busy
    // machine (12 s seen beside other builds), hence the wide bound.
    QVERIFY(m_core.save(makePolicy("poll", 1000, 60'000)));
    QTRY_VERIFY_WITH_TIMEOUT(hasTraffic("poll"), 30000);

    // A deleted one gets none.
    const Result<Policy> poll = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("poll", context, std::move(done));
    });
    QVERIFY(poll);
    QVERIFY(await<Unit>([&](QObject* context, Callback<Unit> done) {
        m_core.policies().remove("poll", poll->revision, QStringLiteral("test"), context,
                                 std::move(done));
    }));
    QTRY_VERIFY_WITH_TIMEOUT(!find(traffic, "poll"), 5000);
    traffic.stop();
}

QTEST_GUILESS_MAIN(DemoTrafficTest)
#include "tst_DemoTraffic.moc"
