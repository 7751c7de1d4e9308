// The sliding log with count_denied (lua/README.md, "Algorithms"): a denied hit that counts joins
// the newest member in the window, which takes its units and its time (now); with no member in
// the window to join, it adds one of its own. Either way the members in the window never
// outnumber the units they hold, so never the limit.

#include "tests/support/CoreFixture.h"
#include "tests/support/RawHit.h"

#include <QtTest>

using tollgate::test::CoreFixture;
using tollgate::test::RawHit;
using tollgate::test::RawHitReply;

class SlidingLogDeniedTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void deniedHitJoinsTheNewestMemberAtNow();
    void deniedHitWithNothingToJoinAddsOne();

private:
    RawHitReply hit(RawHit call, const QByteArray& cost);
    // the log's members with their scores (µs)
    QList<QPair<QByteArray, qint64>> members(const QByteArray& key);

    CoreFixture m_core;
    RawHit m_call;
};

void SlidingLogDeniedTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    QVERIFY(tollgate::test::loadRawScripts(m_core));
    m_call.algorithm = "sliding_log";
    m_call.countDenied = "1";
}

void SlidingLogDeniedTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

RawHitReply SlidingLogDeniedTest::hit(RawHit call, const QByteArray& cost)
{
    call.cost = cost;
    const auto reply = tollgate::test::runRawHit(*m_core.client(), m_core.layout(), call);
    if (!reply)
        qWarning() << reply.error().toString();
    return reply ? *reply : RawHitReply{};
}

QList<QPair<QByteArray, qint64>> SlidingLogDeniedTest::members(const QByteArray& key)
{
    QList<QPair<QByteArray, qint64>> out;
    const auto reply = m_core.inspect({"ZRANGE", key, "0", "-1", "WITHSCORES"});
    for (size_t i = 0; reply && i + 1 < reply->elements.size(); i += 2)
        out.append({reply->elements[i].toBytes(), reply->elements[i + 1].toInteger().value_or(-1)});
    return out;
}

// Limit 3 per minute: cost 1, 1 (members 1 and 2), then cost 2, denied: it counts the one unit
// left, in the newest member, which moves to the denied hit's time.
void SlidingLogDeniedTest::deniedHitJoinsTheNewestMemberAtNow()
{
    RawHit call = m_call;
    call.windows = {{3, 60'000}};
    const QByteArray key = call.stateKey(m_core.schema());
    QVERIFY(hit(call, "1").allowed);
    QVERIFY(hit(call, "1").allowed);
    const auto before = members(key);
    QCOMPARE(before.size(), 2);
    QTest::qWait(20);
    const qint64 deniedAtUs = m_core.serverNowMs() * 1000;
    const RawHitReply denied = hit(call, "2");
    QCOMPARE(denied.tier, QByteArray("deny"));
    QCOMPARE(denied.count, qint64(3)); // filled to the limit, no further
    const auto after = members(key);
    QCOMPARE(after.size(), 2);
    QCOMPARE(after[0], before[0]);
    QCOMPARE(after[1].first, QByteArray("0000000000000003"));
    QVERIFY2(after[1].second >= deniedAtUs,
             qPrintable(QStringLiteral("newest at %1, the denied hit at %2")
                            .arg(after[1].second)
                            .arg(deniedAtUs)));
    // so the window empties a window after the denied hit, not after the second allowed one
    QVERIFY2(denied.resetMs >= 59'000, qPrintable(QString::number(denied.resetMs)));
}

// Limit 2 per minute, an empty log, cost 5: denied, it counts 2 units in a member of its own (the
// units need a time); a second denied hit finds the window full and adds nothing.
void SlidingLogDeniedTest::deniedHitWithNothingToJoinAddsOne()
{
    RawHit call = m_call;
    call.windows = {{2, 60'000}};
    const QByteArray key = call.stateKey(m_core.schema());
    const RawHitReply first = hit(call, "5");
    QCOMPARE(first.tier, QByteArray("deny"));
    QCOMPARE(first.count, qint64(2));
    QCOMPARE(members(key).size(), 1);
    QCOMPARE(members(key)[0].first, QByteArray("0000000000000002"));
    const RawHitReply second = hit(call, "1");
    QCOMPARE(second.tier, QByteArray("deny"));
    QCOMPARE(second.count, qint64(2));
    QCOMPARE(members(key).size(), 1);
}

QTEST_GUILESS_MAIN(SlidingLogDeniedTest)
#include "tst_SlidingLogDenied.moc"
