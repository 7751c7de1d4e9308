// Calendar windows (lua/README.md, ARGV[12] and "Time zones"): a window is [boundary, next
// boundary), its counter stored to expire at the next boundary itself, to the millisecond, however
// long the script takes; a hit in the boundary's own millisecond counts in the new window.

#include "tests/support/CoreFixture.h"
#include "tests/support/RawHit.h"

#include <QtTest>

using tollgate::test::CoreFixture;
using tollgate::test::RawHit;
using tollgate::test::RawHitReply;

namespace {

constexpr qint64 kMinute = 60'000;
constexpr qint64 kHour = 3'600'000;
constexpr qint64 kDay = 86'400'000;

} // namespace

class CalendarBoundaryTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void counterExpiresAtTheBoundary_data();
    void counterExpiresAtTheBoundary();
    void boundaryMillisecondStartsTheNextWindow();

private:
    qint64 expiresAt(const QByteArray& key) { return m_core.integer({"PEXPIRETIME", key}); }

    CoreFixture m_core;
};

void CalendarBoundaryTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    QVERIFY(tollgate::test::loadRawScripts(m_core));
}

void CalendarBoundaryTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

// First hits (and a counter that lost its TTL) of a user whose ACL makes each key check take
// ~1 ms, so the server's clock ticks between the script's TIME and its write. Before the fix the
// counter was stored with PX (boundary - that TIME) and expired 1-2 ms after the boundary.
void CalendarBoundaryTest::counterExpiresAtTheBoundary_data()
{
    QTest::addColumn<qint64>("window");
    QTest::addColumn<qint64>("offset"); // local = UTC + offset
    QTest::addColumn<bool>("ttlLost");  // the counter lost its TTL: the hit gives it the boundary
    QTest::newRow("minute, UTC") << kMinute << qint64(0) << false;
    QTest::newRow("minute, UTC+00:00:17.5") << kMinute << qint64(17'500) << false;
    QTest::newRow("hour, UTC-05:00") << kHour << -5 * kHour << false;
    QTest::newRow("day, UTC+09:30") << kDay << 9 * kHour + 30 * kMinute << false;
    QTest::newRow("minute, TTL lost") << kMinute << qint64(0) << true;
}

void CalendarBoundaryTest::counterExpiresAtTheBoundary()
{
    QFETCH(qint64, window);
    QFETCH(qint64, offset);
    QFETCH(bool, ttlLost);
    const auto slow = tollgate::test::connectSlowAclUser(m_core, 4000);
    QVERIFY(slow);
    RawHit call;
    call.align = "calendar";
    call.offsets = QByteArray::number(offset);
    call.windows = {{1000, window}};
    for (int i = 0; i < 12; ++i) {
        call.user = "c" + QByteArray::number(i);
        const QByteArray key = call.stateKey(m_core.schema());
        if (ttlLost)
            QVERIFY(m_core.inspect({"SET", key, "1"}));
        const auto reply = tollgate::test::runRawHit(*slow, m_core.layout(), call);
        QVERIFY2(reply && reply->allowed,
                 reply ? reply->tier.constData() : qPrintable(reply.error().toString()));
        const qint64 at = expiresAt(key);
        // the boundary: a multiple of the window in local time (days and shorter; no DST here)
        QVERIFY2((at + offset) % window == 0,
                 qPrintable(QStringLiteral("expires at %1, %2 ms past the boundary")
                                .arg(at)
                                .arg((at + offset) % window)));
        QVERIFY(at > m_core.serverNowMs() && at - m_core.serverNowMs() <= window);
    }
}

// Limit 1 per local minute, with an offset that puts the next minute boundary ~300 ms from now:
// one hit fills the window, and a hit bracketed by TIME within the boundary's own millisecond must
// be allowed, in a new window that ends a minute later.
void CalendarBoundaryTest::boundaryMillisecondStartsTheNextWindow()
{
    bool seen = false;
    // Bracketing a hit with TIME inside one millisecond takes luck on a busy machine (a cluster
    // round trip each): up to 100 tries of ~300 ms, most runs need one or two.
    for (int attempt = 0; attempt < 100 && !seen; ++attempt) {
        RawHit call;
        call.user = "b" + QByteArray::number(attempt);
        call.align = "calendar";
        call.windows = {{1, kMinute}};
        const qint64 now = m_core.serverNowMs();
        const qint64 offset =
            (kMinute - (now + 300) % kMinute) % kMinute; // (now + 300 + offset) % minute == 0
        call.offsets = QByteArray::number(offset);
        const QByteArray key = call.stateKey(m_core.schema());
        const auto first = tollgate::test::runRawHit(*m_core.client(), m_core.layout(), call);
        QVERIFY(first && first->allowed);
        const qint64 boundary = expiresAt(key);
        QCOMPARE((boundary + offset) % kMinute, qint64(0));
        while (m_core.serverNowMs() < boundary - 3)
            QTest::qWait(1);
        // Hits wholly before the boundary are denied and write nothing; the first that may have
        // run at or after it decides, if it ran wholly within the boundary's millisecond.
        for (qint64 before = 0, after = 0; after < boundary;) {
            before = m_core.serverNowMs();
            const auto reply = tollgate::test::runRawHit(*m_core.client(), m_core.layout(), call);
            after = m_core.serverNowMs();
            QVERIFY(reply);
            if (before == boundary && after == boundary) {
                QVERIFY2(reply->allowed, reply->tier.constData());
                QCOMPARE(reply->resetMs, kMinute);
                QCOMPARE(expiresAt(key), boundary + kMinute);
                seen = true;
            }
        }
    }
    QVERIFY2(seen, "no hit ran within a boundary's millisecond in 100 attempts");
}

QTEST_GUILESS_MAIN(CalendarBoundaryTest)
#include "tst_CalendarBoundary.moc"
