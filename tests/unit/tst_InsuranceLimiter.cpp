// The in-process insurance limiter on its own: scaled limits, cost, all-or-nothing windows,
// peeks that count nothing, and memory that stays bounded however many users it sees.
#include "tollgate/Limiter.h"

#include <QtTest>

using namespace tollgate;

class tst_InsuranceLimiter : public QObject
{
    Q_OBJECT

private:
    static Policy policy(std::vector<WindowLimit> windows)
    {
        Policy p;
        p.action = "upload";
        p.windows = std::move(windows);
        return p;
    }

private Q_SLOTS:
    void costAndAllOrNothing()
    {
        InsuranceLimiter limiter;
        const Policy p = policy({{10, 60'000}, {12, 3'600'000}});
        QVERIFY(limiter.hit(p, "u", 6, true).allowed);
        QVERIFY(limiter.hit(p, "u", 4, true).allowed); // minute window full: 10/10
        const HitResult denied = limiter.hit(p, "u", 1, true);
        QVERIFY(!denied.allowed);
        QCOMPARE(denied.limit, qint64(10)); // the denying window
        QCOMPARE(denied.decidedBy, DecidedBy::Insurance);
        // Nothing of the denied hit was counted in the hour window either: 10 + 2 fits 12,
        // but only after the minute window frees up, so it is still denied now.
        QVERIFY(!limiter.hit(p, "u", 2, true).allowed);
        // A cost above the limit can never pass.
        QCOMPARE(limiter.hit(p, "other", 11, true).retryAfterMs, qint64(-1));
    }

    void factorScalesAndNeverReachesZero()
    {
        InsuranceLimiter::Options options;
        options.factor = 0.01;
        InsuranceLimiter limiter(options);
        const Policy p = policy({{10, 60'000}});
        const HitResult first = limiter.hit(p, "u", 1, false);
        QCOMPARE(first.limit, qint64(1));
        QVERIFY(first.allowed);
        QVERIFY(limiter.hit(p, "u", 1, true).allowed);
        QVERIFY(!limiter.hit(p, "u", 1, true).allowed);
    }

    void memoryIsBounded()
    {
        InsuranceLimiter::Options options;
        options.maxWindows = 100;
        InsuranceLimiter limiter(options);
        const Policy p = policy({{5, 3'600'000}});
        for (int i = 0; i < 1000; ++i)
            limiter.hit(p, "user-" + QByteArray::number(i), 1, true);
        QVERIFY(limiter.windowCount() <= 100);
        QVERIFY(limiter.windowCount() > 0);
    }
};

QTEST_GUILESS_MAIN(tst_InsuranceLimiter)
#include "tst_InsuranceLimiter.moc"
