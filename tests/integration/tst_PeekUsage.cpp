// What every view shows of a subject (core/subjects/Usage.h) from hit.lua's peek, at and past the
// limit, for every algorithm: an exempt user (counted, never denied) and a count_denied policy's
// subject show the count their windows hold. A sliding log and a token bucket hold at most the
// limit, so the hit a peek weighs there adds less than its cost (nothing, at the cap): the count
// must be the window's as it stands (hit.lua's peek reply [10], [11]), never the count after the
// hit with the cost taken back out, which read one unit short. Also the demo's load test (exempt
// from a 5 per second sliding log, sending twice that) shows its count with a reset time.

#include "core/subjects/Usage.h"
#include "tests/support/AlgorithmRows.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Overrides.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;

namespace {

constexpr qint64 kDay = 86'400'000;

bool capsItsCount(Algorithm algorithm)
{
    return algorithm == Algorithm::SlidingLog || algorithm == Algorithm::TokenBucket;
}

} // namespace

class PeekUsageTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void countAtAndPastTheLimit_data();
    void countAtAndPastTheLimit();
    void peekReportsTheWindowBeforeTheHit_data() { test::algorithmRows(); }
    void peekReportsTheWindowBeforeTheHit();
    void exemptLoadTestShowsItsCount();

private:
    bool exempt(const QByteArray& user, const QByteArray& action);
    HitResult usage(const Policy& policy, const QByteArray& user);

    CoreFixture m_core;
};

void PeekUsageTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void PeekUsageTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

bool PeekUsageTest::exempt(const QByteArray& user, const QByteArray& action)
{
    OverrideRequest request;
    request.user = user;
    request.action = action;
    request.kind = OverrideKind::Unlimited;
    request.durationMs = kDay;
    request.actor = QStringLiteral("ops");
    request.reason = QStringLiteral("load test");
    return m_core.setOverride(request);
}

HitResult PeekUsageTest::usage(const Policy& policy, const QByteArray& user)
{
    const auto peek = m_core.peek(policy, user);
    if (!peek) {
        qWarning() << peek.error().toString();
        return {};
    }
    return usageFromPeek(*peek, policy);
}

// Limit 5 per day (nothing leaks away while the test runs), `hits` hits of cost 1, then the
// usage: the count the windows hold (the capped ones at most 5), its remaining and a reset.
void PeekUsageTest::countAtAndPastTheLimit_data()
{
    QTest::addColumn<Algorithm>("algorithm");
    QTest::addColumn<bool>("exemptUser"); // else a count_denied policy
    QTest::addColumn<int>("hits");
    for (const auto& [name, algorithm] : {std::pair{"fixed_window", Algorithm::FixedWindow},
                                          {"sliding_log", Algorithm::SlidingLog},
                                          {"sliding_window", Algorithm::SlidingWindow},
                                          {"token_bucket", Algorithm::TokenBucket}}) {
        for (bool exemptUser : {true, false}) {
            for (int hits : {5, 8})
                QTest::addRow("%s, %s, %s", name, exemptUser ? "exempt" : "count_denied",
                              hits == 5 ? "at the limit" : "past it")
                    << algorithm << exemptUser << hits;
        }
    }
}

void PeekUsageTest::countAtAndPastTheLimit()
{
    QFETCH(Algorithm, algorithm);
    QFETCH(bool, exemptUser);
    QFETCH(int, hits);
    Policy policy;
    policy.action = "api";
    policy.algorithm = algorithm;
    policy.windows = {{5, kDay}};
    policy.countDenied = !exemptUser;
    if (exemptUser)
        QVERIFY(exempt("bot", policy.action));
    for (int i = 0; i < hits; ++i) {
        const auto hit = m_core.hit(policy, "bot");
        QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
        QCOMPARE(hit->allowed, exemptUser || i < 5);
    }
    const qint64 held = capsItsCount(algorithm) ? 5 : hits;
    const HitResult shown = usage(policy, "bot");
    QCOMPARE(shown.count, held);
    QCOMPARE(shown.limit, qint64(5));
    QCOMPARE(shown.remaining, qint64(0));
    QVERIFY2(shown.resetMs > 0, qPrintable(QString::number(shown.resetMs)));
    // The tier says what the next hit would get: an exempt user is never denied.
    QCOMPARE(shown.tier, exemptUser ? Tier::Ok : Tier::Deny);
}

// The peek reply itself: count and reset of the window before the hit, beside the would-be hit's.
// Empty, the window holds nothing and has no reset; after one hit, what that hit left.
void PeekUsageTest::peekReportsTheWindowBeforeTheHit()
{
    QFETCH(Algorithm, algorithm);
    Policy policy;
    policy.action = "api";
    policy.algorithm = algorithm;
    policy.windows = {{5, kDay}};
    auto peek = m_core.peek(policy, "ann");
    QVERIFY2(peek, qPrintable(peek ? QString() : peek.error().toString()));
    QCOMPARE(peek->count, qint64(1)); // what the hit would leave
    QCOMPARE(peek->countNow, qint64(0));
    QCOMPARE(peek->resetNowMs, qint64(0));
    const auto hit = m_core.hit(policy, "ann");
    QVERIFY(hit);
    peek = m_core.peek(policy, "ann");
    QVERIFY(peek);
    QCOMPARE(peek->count, qint64(2));
    QCOMPARE(peek->countNow, qint64(1));
    QVERIFY2(peek->resetNowMs > 0 && peek->resetNowMs <= hit->resetMs,
             qPrintable(QStringLiteral("%1 after a hit's %2").arg(peek->resetNowMs).arg(hit->resetMs)));
    // A hit's reply has no such elements.
    QCOMPARE(hit->countNow, qint64(-1));
}

// The demo's load-test-bot: exempt from "api" (sliding log, 5 per second), hitting it ten times a
// second. While it sends, its row shows a full window with a reset, never "0 / 5" without one.
void PeekUsageTest::exemptLoadTestShowsItsCount()
{
    Policy api;
    api.action = "api";
    api.algorithm = Algorithm::SlidingLog;
    api.windows = {{5, 1000}};
    QVERIFY(exempt("load-test-bot", api.action));
    for (int i = 0; i < 12; ++i) {
        const auto hit = m_core.hit(api, "load-test-bot");
        QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
        QVERIFY(hit->allowed);
        QCOMPARE(hit->appliedOverride, AppliedOverride::Unlimited);
    }
    const HitResult shown = usage(api, "load-test-bot");
    // The log holds at most its limit (the exempt hits past it add nothing) and empties a
    // second after its newest member; however slow the hits ran, the last one is in it.
    QVERIFY2(shown.count >= 1 && shown.count <= 5, qPrintable(QString::number(shown.count)));
    QVERIFY2(shown.resetMs > 0 && shown.resetMs <= 1000, qPrintable(QString::number(shown.resetMs)));
}

QTEST_GUILESS_MAIN(PeekUsageTest)
#include "tst_PeekUsage.moc"
