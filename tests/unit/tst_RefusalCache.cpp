// RefusalCache on its own: what it keeps, for which costs, how its answers count down, the
// bound, and what forgets an entry.
#include "tollgate/RefusalCache.h"

#include <QtTest>

using namespace tollgate;

namespace {

Policy policy(const QByteArray& action = "login")
{
    Policy p;
    p.action = action;
    p.windows = {{5, 60'000}};
    p.revision = 3;
    return p;
}

HitResult refusal(qint64 retryAfterMs, Tier tier = Tier::Deny)
{
    HitResult hit;
    hit.allowed = false;
    hit.tier = tier;
    hit.count = 5;
    hit.limit = 5;
    hit.resetMs = retryAfterMs;
    hit.retryAfterMs = retryAfterMs;
    return hit;
}

} // namespace

class RefusalCacheTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keepsOnlyRefusalsWithAKnownEnd();
    void aWindowRefusalHoldsForTheSameOrALargerCost();
    void aBanHoldsForEveryCost();
    void answersCountDownAndEnd();
    void anotherRevisionIsAnotherPolicy();
    void forgettingByUserAndByAction();
    void staysWithinItsBound();
    void inactiveKeepsNothing();
};

void RefusalCacheTest::keepsOnlyRefusalsWithAKnownEnd()
{
    RefusalCache cache;
    HitResult allowed;
    allowed.allowed = true;
    cache.remember(policy(), "a", 1, allowed);
    HitResult shadow = refusal(1000);
    shadow.shadow = true;
    cache.remember(policy(), "b", 1, shadow);
    HitResult failClosed = refusal(1000);
    failClosed.decidedBy = DecidedBy::FailClosed;
    cache.remember(policy(), "c", 1, failClosed);
    cache.remember(policy(), "d", 1, refusal(0));
    Policy countsDenied = policy();
    countsDenied.countDenied = true;
    countsDenied.algorithm = Algorithm::SlidingLog; // a fixed window's refusal holds anyway
    cache.remember(countsDenied, "e", 1, refusal(1000));
    QCOMPARE(cache.stats().entries, 0);
    for (const char* user : {"a", "b", "c", "d", "e"})
        QVERIFY(!cache.answer(policy(), user, 1));

    cache.remember(policy(), "f", 1, refusal(1000));
    QCOMPARE(cache.stats().entries, 1);
    const auto answer = cache.answer(policy(), "f", 1);
    QVERIFY(answer);
    QVERIFY(!answer->allowed);
    QCOMPARE(answer->count, 5);
}

void RefusalCacheTest::aWindowRefusalHoldsForTheSameOrALargerCost()
{
    RefusalCache cache;
    cache.remember(policy(), "u", 3, refusal(1000));
    QVERIFY(cache.answer(policy(), "u", 3));
    QVERIFY(cache.answer(policy(), "u", 4));
    QVERIFY(!cache.answer(policy(), "u", 2)); // a cheaper hit may still fit: Redis decides
    // cost 0 means the policy's cost (1 here), cheaper than the refused 3
    QVERIFY(!cache.answer(policy(), "u", 0));
}

void RefusalCacheTest::aBanHoldsForEveryCost()
{
    RefusalCache cache;
    cache.remember(policy(), "u", 5, refusal(60'000, Tier::Banned));
    QVERIFY(cache.answer(policy(), "u", 1));
    // A deny of a policy that bans is a ban from then on.
    Policy bans = policy("comment");
    bans.banMs = 600'000;
    cache.remember(bans, "v", 5, refusal(600'000));
    const auto banned = cache.answer(bans, "v", 1);
    QVERIFY(banned);
    QCOMPARE(banned->tier, Tier::Banned);
    // A permanent ban is held, but only for kMaxHoldMs between confirmations.
    cache.remember(policy(), "w", 1, refusal(-1, Tier::Banned));
    const auto permanent = cache.answer(policy(), "w", 1);
    QVERIFY(permanent);
    QCOMPARE(permanent->retryAfterMs, -1);
}

void RefusalCacheTest::answersCountDownAndEnd()
{
    RefusalCache cache;
    cache.remember(policy(), "u", 1, refusal(150));
    QTest::qWait(60);
    const auto later = cache.answer(policy(), "u", 1);
    QVERIFY(later);
    QVERIFY2(later->retryAfterMs <= 100 && later->retryAfterMs >= 1, qPrintable(QString::number(later->retryAfterMs)));
    QVERIFY(later->resetMs <= 100);
    QTest::qWait(120);
    QVERIFY(!cache.answer(policy(), "u", 1)); // ended: Redis is asked again
    QCOMPARE(cache.stats().entries, 0);
}

void RefusalCacheTest::anotherRevisionIsAnotherPolicy()
{
    RefusalCache cache;
    cache.remember(policy(), "u", 1, refusal(1000));
    Policy loosened = policy();
    loosened.revision = 4;
    loosened.windows = {{50, 60'000}};
    QVERIFY(!cache.answer(loosened, "u", 1));
}

void RefusalCacheTest::forgettingByUserAndByAction()
{
    RefusalCache cache;
    for (const QByteArray& action : {QByteArray("login"), QByteArray("comment")}) {
        for (const QByteArray& user : {QByteArray("u"), QByteArray("v")})
            cache.remember(policy(action), user, 1, refusal(1000));
    }
    QCOMPARE(cache.stats().entries, 4);
    cache.forgetUser("u", "login");
    QVERIFY(!cache.answer(policy("login"), "u", 1));
    QVERIFY(cache.answer(policy("comment"), "u", 1));
    cache.forgetUser("u"); // every action
    QVERIFY(!cache.answer(policy("comment"), "u", 1));
    cache.forgetAction("comment");
    QVERIFY(!cache.answer(policy("comment"), "v", 1));
    QVERIFY(cache.answer(policy("login"), "v", 1));
    cache.forgetUser("v", "*");
    QCOMPARE(cache.stats().entries, 0);
}

void RefusalCacheTest::staysWithinItsBound()
{
    RefusalCache cache(64 * 1024);
    for (int i = 0; i < 5000; ++i)
        cache.remember(policy(), QByteArray::number(i), 1, refusal(60'000));
    const RefusalCache::Stats stats = cache.stats();
    QVERIFY2(stats.bytes <= 64 * 1024, qPrintable(QString::number(stats.bytes)));
    QVERIFY(stats.evictions > 0);
    QVERIFY(stats.entries > 50);
    QVERIFY(cache.answer(policy(), "4999", 1)); // the newest stay
    QVERIFY(!cache.answer(policy(), "0", 1));   // the oldest went first
}

void RefusalCacheTest::inactiveKeepsNothing()
{
    RefusalCache cache;
    cache.remember(policy(), "u", 1, refusal(1000));
    cache.setActive(false);
    QVERIFY(!cache.answer(policy(), "u", 1));
    cache.remember(policy(), "v", 1, refusal(1000));
    cache.setActive(true);
    QCOMPARE(cache.stats().entries, 0);
    QVERIFY(!cache.answer(policy(), "u", 1));
}

QTEST_GUILESS_MAIN(RefusalCacheTest)
#include "tst_RefusalCache.moc"
