// The seed scenarios, end to end: a policy saved through PolicyStore, read back, and
// enforced by Limiter (hit.lua) on a real redis-server.

#include "core/policies/Duration.h"
#include "tests/support/CoreFixture.h"

#include <QTimeZone>
#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

Q_DECLARE_METATYPE(tollgate::Algorithm)

namespace {

constexpr qint64 kHour = 3'600'000;
constexpr qint64 kDay = 86'400'000;

} // namespace

class ScenariosTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void fixedWindowWithDenyMessage_data();
    void fixedWindowWithDenyMessage();
    void limitThenBan_data();
    void limitThenBan();
    void banUntilMidnight_data();
    void banUntilMidnight();
    void severalWindowsAllOrNothing_data();
    void severalWindowsAllOrNothing();
    void tieredThresholds_data();
    void tieredThresholds();
    void tokenBucketWithCost_data();
    void tokenBucketWithCost();
    void exactSlidingLog_data();
    void exactSlidingLog();
    void peekThenHit_data();
    void peekThenHit();
    void oneMillisecondWindows_data();
    void oneMillisecondWindows();
    void slidingWindowCounter();

private:
    // Saves the policy, reads it back from Redis and returns the stored copy: the scenarios run
    // against what PolicyStore persisted, not against the struct the test built.
    Policy store(const Policy& policy);
    std::vector<AuditEntry> auditOf(const QByteArray& user);

    CoreFixture m_core;
};

void ScenariosTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void ScenariosTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

Policy ScenariosTest::store(const Policy& policy)
{
    const auto revision = m_core.save(policy);
    if (!revision) {
        qWarning("save failed: %s", qPrintable(revision.error().toString()));
        return {};
    }
    const auto stored = tollgate::test::await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get(policy.action, context, std::move(done));
    });
    if (!stored) {
        qWarning("get failed: %s", qPrintable(stored.error().toString()));
        return {};
    }
    return *stored;
}

std::vector<AuditEntry> ScenariosTest::auditOf(const QByteArray& user)
{
    const auto entries = m_core.userAudit(user);
    return entries ? *entries : std::vector<AuditEntry>{};
}

// --- fixed window with a deny message: comment at most 10 times per 30 s --------------------

void ScenariosTest::fixedWindowWithDenyMessage_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("windowMs");
    QTest::addColumn<QString>("message");
    QTest::newRow("comment 10 per 30s") << qint64(10) << qint64(30000)
                                        << QStringLiteral("You can comment 10 times per 30 seconds.");
    QTest::newRow("comment 3 per 1m, unicode message")
        << qint64(3) << qint64(60000) << QStringLiteral("Ça suffit — réessayez plus tard ⏳");
}

void ScenariosTest::fixedWindowWithDenyMessage()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, windowMs);
    QFETCH(QString, message);

    Policy policy = makePolicy("comment", limit, windowMs);
    policy.message = message;
    policy = store(policy);
    QCOMPARE(policy.message, message);

    for (qint64 i = 1; i <= limit; ++i) {
        const auto hit = m_core.hit(policy, "42");
        QVERIFY2(hit.ok(), hit ? "" : qPrintable(hit.error().toString()));
        QVERIFY2(hit->allowed, qPrintable(QStringLiteral("hit %1 denied").arg(i)));
        QCOMPARE(hit->tier, Tier::Ok);
        QCOMPARE(hit->count, i);
        QCOMPARE(hit->limit, limit);
        QCOMPARE(hit->remaining, limit - i);
        QVERIFY(hit->resetMs > 0 && hit->resetMs <= windowMs);
        QCOMPARE(hit->retryAfterMs, qint64(0));
        QVERIFY(hit->message.isEmpty());
    }
    const auto denied = m_core.hit(policy, "42");
    QVERIFY(denied.ok());
    QVERIFY(!denied->allowed);
    QCOMPARE(denied->tier, Tier::Deny);
    QCOMPARE(denied->message, message);
    QCOMPARE(denied->remaining, qint64(0));
    QVERIFY(denied->retryAfterMs > 0 && denied->retryAfterMs <= windowMs);

    const QByteArray key = m_core.schema().stateKey("42", "comment", Algorithm::FixedWindow, windowMs);
    QCOMPARE(m_core.bytes({"GET", key}), QByteArray::number(limit)); // denied hits do not count
    const qint64 ttl = m_core.pttl(key);
    QVERIFY2(ttl > 0 && ttl <= windowMs, qPrintable(QString::number(ttl)));
    // Another user is not affected.
    QVERIFY(m_core.hit(policy, "43")->allowed);
}

// --- limit then ban: at most 10 likes per 10 s, then banned for 1 hour ----------------------

void ScenariosTest::limitThenBan_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("windowMs");
    QTest::addColumn<qint64>("banMs");
    QTest::addColumn<QByteArray>("user");
    QTest::newRow("like 10 per 10s, ban 1h") << qint64(10) << qint64(10000) << kHour
                                             << QByteArray("42");
    QTest::newRow("like 2 per 1s, ban 1d, odd user id") << qint64(2) << qint64(1000) << kDay
                                                        << QByteArray("ü:{x}* 1\n");
}

void ScenariosTest::limitThenBan()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, windowMs);
    QFETCH(qint64, banMs);
    QFETCH(QByteArray, user);

    Policy policy = makePolicy("like", limit, windowMs);
    policy.banMs = banMs;
    policy = store(policy);
    QCOMPARE(policy.banMs, banMs);

    for (qint64 i = 1; i <= limit; ++i)
        QVERIFY(m_core.hit(policy, user)->allowed);

    const auto denied = m_core.hit(policy, user);
    QVERIFY(denied.ok());
    QVERIFY(!denied->allowed);
    QCOMPARE(denied->tier, Tier::Deny);
    QVERIFY2(denied->retryAfterMs > banMs - 5000 && denied->retryAfterMs <= banMs,
             qPrintable(QString::number(denied->retryAfterMs)));

    const auto banned = m_core.hit(policy, user);
    QVERIFY(banned.ok());
    QVERIFY(!banned->allowed);
    QCOMPARE(banned->tier, Tier::Banned);
    QVERIFY(banned->retryAfterMs > banMs - 5000 && banned->retryAfterMs <= banMs);

    const QByteArray banKey = m_core.schema().actionBanKey(user, "like");
    const qint64 ttl = m_core.pttl(banKey);
    QVERIFY2(ttl > banMs - 5000 && ttl <= banMs, qPrintable(QString::number(ttl)));
    QCOMPARE(m_core.bytes({"HGET", banKey, "source"}), QByteArray("auto"));

    // The ban outlives the window: once the counter has expired the user is still banned.
    const QByteArray counter = m_core.schema().stateKey(user, "like", Algorithm::FixedWindow, windowMs);
    if (windowMs <= 1000) {
        QTRY_COMPARE_WITH_TIMEOUT(m_core.integer({"EXISTS", counter}), qint64(0), int(windowMs) * 3);
        QCOMPARE(m_core.hit(policy, user)->tier, Tier::Banned);
    }

    const auto audit = auditOf(user);
    const auto autoBan = std::find_if(audit.begin(), audit.end(),
                                      [](const AuditEntry& e) { return e.event == QLatin1String("auto_ban"); });
    QVERIFY(autoBan != audit.end());
    QCOMPARE(autoBan->user, user);
    QCOMPARE(autoBan->action, QByteArray("like"));
    QVERIFY(autoBan->untilMs > 0);
}

// --- until a calendar boundary: 100 uploads per day, ban until the next local midnight ------

void ScenariosTest::banUntilMidnight_data()
{
    QTest::addColumn<QByteArray>("zone");
    QTest::newRow("UTC") << QByteArray("UTC");
    QTest::newRow("Berlin") << QByteArray("Europe/Berlin");
    QTest::newRow("New York") << QByteArray("America/New_York");
    QTest::newRow("Kolkata +5:30") << QByteArray("Asia/Kolkata");
    QTest::newRow("fixed UTC-05:00") << QByteArray("UTC-05:00");
}

void ScenariosTest::banUntilMidnight()
{
    QFETCH(QByteArray, zone);

    Policy policy = makePolicy("upload", 100, kDay);
    policy.banUntilMidnight = true;
    policy.timeZone = zone;
    policy = store(policy);
    QVERIFY(policy.banUntilMidnight);
    QCOMPARE(policy.timeZone, zone);

    for (int i = 1; i <= 100; ++i)
        QVERIFY(m_core.hit(policy, "42")->allowed);
    const qint64 before = m_core.serverNowMs();
    const auto denied = m_core.hit(policy, "42");
    const qint64 after = m_core.serverNowMs();
    QVERIFY(denied.ok());
    QCOMPARE(denied->tier, Tier::Deny);

    // The oracle is QTimeZone itself: the start of the next local day.
    const QTimeZone tz(zone);
    const auto nextMidnight = [&tz](qint64 nowMs) {
        const QDate today = QDateTime::fromMSecsSinceEpoch(nowMs, tz).date();
        return QDateTime(today.addDays(1), QTime(0, 0), tz).toMSecsSinceEpoch();
    };
    const QByteArray banKey = m_core.schema().actionBanKey("42", "upload");
    const qint64 until = m_core.bytes({"HGET", banKey, "until_ms"}).toLongLong();
    QVERIFY2(until == nextMidnight(before) || until == nextMidnight(after),
             qPrintable(QStringLiteral("until %1, expected %2").arg(until).arg(nextMidnight(before))));
    QVERIFY(until > before && until - before <= 25 * kHour);
    // The ban ends at midnight and the day's counter with it: retry says exactly that.
    QVERIFY2(denied->retryAfterMs >= until - after && denied->retryAfterMs <= until - before,
             qPrintable(QString::number(denied->retryAfterMs)));
    const QByteArray counter =
        m_core.schema().stateKey("42", "upload", Algorithm::FixedWindow, kDay);
    QVERIFY(m_core.pttl(counter) <= until - before);
    const qint64 ttl = m_core.pttl(banKey);
    QVERIFY(ttl > 0 && qAbs(ttl - (until - before)) < 5000);
    QCOMPARE(m_core.hit(policy, "42")->tier, Tier::Banned);
}

// --- several windows on one action, all-or-nothing ------------------------------------------

void ScenariosTest::severalWindowsAllOrNothing_data()
{
    QTest::addColumn<QString>("windows");
    QTest::addColumn<qint64>("allowed");      // hits that pass
    QTest::addColumn<qint64>("bindingLimit"); // the limit reported by the denial
    QTest::newRow("minute binds") << QStringLiteral("1m:3,1h:5,1d:10") << qint64(3) << qint64(3);
    QTest::newRow("hour binds") << QStringLiteral("1m:5,1h:4,1d:10") << qint64(4) << qint64(4);
    QTest::newRow("day binds") << QStringLiteral("1m:5,1h:6,1d:2") << qint64(2) << qint64(2);
}

void ScenariosTest::severalWindowsAllOrNothing()
{
    QFETCH(QString, windows);
    QFETCH(qint64, allowed);
    QFETCH(qint64, bindingLimit);

    Policy policy;
    policy.action = "search";
    const auto parsed = Policy::parseWindows(windows);
    QVERIFY(parsed.ok());
    policy.windows = *parsed;
    policy = store(policy);
    QCOMPARE(policy.windows.size(), size_t(3));

    for (qint64 i = 1; i <= allowed; ++i)
        QVERIFY(m_core.hit(policy, "42")->allowed);
    for (int attempt = 0; attempt < 3; ++attempt) {
        const auto denied = m_core.hit(policy, "42");
        QVERIFY(denied.ok());
        QVERIFY(!denied->allowed);
        QCOMPARE(denied->limit, bindingLimit);
    }
    // No window moved on the denied hits: every counter holds exactly the allowed hits.
    for (const WindowLimit& w : policy.windows) {
        const QByteArray key =
            m_core.schema().stateKey("42", "search", Algorithm::FixedWindow, w.windowMs);
        QCOMPARE(m_core.bytes({"GET", key}), QByteArray::number(allowed));
        const qint64 ttl = m_core.pttl(key);
        QVERIFY(ttl > 0 && ttl <= w.windowMs);
    }
}

// --- tiered thresholds: warn over 10 views per minute, deny and ban over 20 -----------------

void ScenariosTest::tieredThresholds_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("warn");
    QTest::newRow("view 20 per minute, warn 10") << qint64(20) << qint64(10);
    QTest::newRow("view 5 per minute, warn 1") << qint64(5) << qint64(1);
}

void ScenariosTest::tieredThresholds()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, warn);

    Policy policy = makePolicy("view", limit, 60000);
    policy.warn = warn;
    policy.banMs = kHour;
    policy = store(policy);
    QCOMPARE(policy.warn, warn);

    for (qint64 i = 1; i <= limit; ++i) {
        const auto hit = m_core.hit(policy, "42");
        QVERIFY(hit.ok());
        QVERIFY(hit->allowed);
        QCOMPARE(hit->tier, i <= warn ? Tier::Ok : Tier::Warn);
    }
    const auto denied = m_core.hit(policy, "42");
    QCOMPARE(denied->tier, Tier::Deny);
    QCOMPARE(m_core.hit(policy, "42")->tier, Tier::Banned);
    QVERIFY(m_core.pttl(m_core.schema().actionBanKey("42", "view")) > kHour - 5000);

    // Operators see one warning (when the threshold is crossed) and one automatic ban.
    int warnings = 0;
    int bans = 0;
    for (const AuditEntry& e : auditOf("42")) {
        warnings += e.event == QLatin1String("warn");
        bans += e.event == QLatin1String("auto_ban");
    }
    QCOMPARE(warnings, 1);
    QCOMPARE(bans, 1);
}

// --- a quota spent by token counts (GCRA) ---------------------------------------------------

void ScenariosTest::tokenBucketWithCost_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("windowMs");
    QTest::addColumn<qint64>("policyCost"); // the policy's default cost
    QTest::addColumn<qint64>("hitCost");    // passed to hit(); 0 = the policy's
    QTest::newRow("export 100 per hour, cost 30") << qint64(100) << kHour << qint64(30) << qint64(0);
    QTest::newRow("100 per hour, cost 30 per call") << qint64(100) << kHour << qint64(1) << qint64(30);
    QTest::newRow("10 per second, cost 4") << qint64(10) << qint64(1000) << qint64(1) << qint64(4);
}

void ScenariosTest::tokenBucketWithCost()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, windowMs);
    QFETCH(qint64, policyCost);
    QFETCH(qint64, hitCost);

    Policy policy = makePolicy("export", limit, windowMs, Algorithm::TokenBucket);
    policy.cost = policyCost;
    policy = store(policy);
    QCOMPARE(policy.algorithm, Algorithm::TokenBucket);

    const qint64 cost = hitCost > 0 ? hitCost : policyCost;
    const qint64 passes = limit / cost;
    for (qint64 i = 1; i <= passes; ++i) {
        const auto hit = m_core.hit(policy, "42", hitCost);
        QVERIFY(hit.ok());
        QVERIFY(hit->allowed);
        QCOMPARE(hit->count, i * cost);
        QCOMPARE(hit->remaining, limit - i * cost);
    }
    const auto denied = m_core.hit(policy, "42", hitCost);
    QVERIFY(denied.ok());
    QVERIFY(!denied->allowed);
    QCOMPARE(denied->tier, Tier::Deny);
    // Tokens come back at limit/window: the hit can pass once enough of them have been refilled.
    const qint64 missing = passes * cost + cost - limit;
    const qint64 expected = missing * windowMs / limit;
    QVERIFY2(denied->retryAfterMs > expected - 1000 && denied->retryAfterMs <= expected + 1,
             qPrintable(QStringLiteral("retry %1, expected ~%2").arg(denied->retryAfterMs).arg(expected)));
    // A smaller hit that still fits passes: the bucket is not "all or nothing" per call.
    if (limit - passes * cost > 0)
        QVERIFY(m_core.hit(policy, "42", limit - passes * cost)->allowed);

    const QByteArray key = m_core.schema().stateKey("42", "export", Algorithm::TokenBucket, windowMs);
    const qint64 ttl = m_core.pttl(key);
    QVERIFY(ttl > 0 && ttl <= windowMs + 1);
}

// --- exact sliding window (log) --------------------------------------------------------------

void ScenariosTest::exactSlidingLog_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("windowMs");
    QTest::newRow("api 5 per 400ms") << qint64(5) << qint64(400);
    QTest::newRow("api 3 per 600ms") << qint64(3) << qint64(600);
}

void ScenariosTest::exactSlidingLog()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, windowMs);

    Policy policy = store(makePolicy("api", limit, windowMs, Algorithm::SlidingLog));
    QCOMPARE(policy.algorithm, Algorithm::SlidingLog);

    // One hit now, the rest half a window later: when the first leaves the window exactly one
    // hit can pass again (a fixed window would let all of them through).
    QElapsedTimer clock;
    clock.start();
    QVERIFY(m_core.hit(policy, "42")->allowed);
    QTest::qWait(int(windowMs / 2));
    for (qint64 i = 2; i <= limit; ++i)
        QVERIFY(m_core.hit(policy, "42")->allowed);
    const auto denied = m_core.hit(policy, "42");
    QVERIFY(!denied->allowed);
    QVERIFY(denied->retryAfterMs > 0 && denied->retryAfterMs <= windowMs - windowMs / 2 + 50);

    QTRY_VERIFY_WITH_TIMEOUT(m_core.peek(policy, "42")->allowed, int(windowMs) * 2);
    QVERIFY2(clock.elapsed() >= windowMs - 5, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(m_core.hit(policy, "42")->allowed);
    if (clock.elapsed() < windowMs + windowMs / 2 - 50) {
        const auto again = m_core.hit(policy, "42");
        QVERIFY2(!again->allowed, "the later hits are still inside the window");
    }
    const QByteArray key = m_core.schema().stateKey("42", "api", Algorithm::SlidingLog, windowMs);
    const qint64 ttl = m_core.pttl(key);
    QVERIFY(ttl > 0 && ttl <= windowMs);
}

// --- check before the expensive call, count only after it succeeded -------------------------

void ScenariosTest::peekThenHit_data()
{
    QTest::addColumn<Algorithm>("algorithm");
    QTest::newRow("fixed_window") << Algorithm::FixedWindow;
    QTest::newRow("sliding_log") << Algorithm::SlidingLog;
    QTest::newRow("sliding_window") << Algorithm::SlidingWindow;
    QTest::newRow("token_bucket") << Algorithm::TokenBucket;
}

void ScenariosTest::peekThenHit()
{
    QFETCH(Algorithm, algorithm);

    Policy policy = makePolicy("render", 3, 60000, algorithm);
    policy.banMs = kHour;
    policy = store(policy);
    const qint64 keysBefore = m_core.dbsize();

    // Peeking writes nothing, however often; it answers what a hit would get (count after it).
    for (int i = 0; i < 5; ++i) {
        const auto peek = m_core.peek(policy, "42");
        QVERIFY2(peek.ok(), peek ? "" : qPrintable(peek.error().toString()));
        QVERIFY(peek->allowed);
        QCOMPARE(peek->count, qint64(1));
        QCOMPARE(peek->remaining, qint64(2));
    }
    QCOMPARE(m_core.dbsize(), keysBefore);

    for (qint64 done = 1; done <= 3; ++done) {
        QVERIFY(m_core.peek(policy, "42")->allowed); // before the expensive call
        const auto hit = m_core.hit(policy, "42");  // after it succeeded
        QVERIFY(hit->allowed);
        QCOMPARE(hit->count, done);
        // Peeks after the hit see it, and do not move anything themselves.
        const qint64 next = m_core.peek(policy, "42")->count;
        QCOMPARE(next, done < 3 ? done + 1 : done);
        QCOMPARE(m_core.peek(policy, "42")->count, next);
    }
    // A denying peek neither counts nor bans; the denied hit does ban.
    const auto peek = m_core.peek(policy, "42");
    QVERIFY(!peek->allowed);
    QCOMPARE(peek->tier, Tier::Deny);
    QVERIFY(peek->retryAfterMs > 0);
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().actionBanKey("42", "render")}), qint64(0));
    QCOMPARE(m_core.hit(policy, "42")->tier, Tier::Deny);
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().actionBanKey("42", "render")}), qint64(1));
    QCOMPARE(m_core.peek(policy, "42")->tier, Tier::Banned);
}

// --- windows down to 1 ms: always a TTL, never a counter that lives forever -----------------

void ScenariosTest::oneMillisecondWindows_data()
{
    peekThenHit_data();
}

void ScenariosTest::oneMillisecondWindows()
{
    QFETCH(Algorithm, algorithm);
    const Policy policy = store(makePolicy("tick", 1, 1, algorithm));
    QCOMPARE(policy.windows.front().windowMs, qint64(1));
    const QByteArray key = m_core.schema().stateKey("42", "tick", algorithm, 1);

    int allowed = 0;
    for (int i = 0; i < 200; ++i) {
        const auto hit = m_core.hit(policy, "42");
        QVERIFY2(hit.ok(), hit ? "" : qPrintable(hit.error().toString()));
        allowed += hit->allowed;
        const qint64 ttl = m_core.pttl(key);
        QVERIFY2(ttl != -1, "a 1 ms window key without TTL");
    }
    QVERIFY(allowed >= 2); // the window really rolls over
    QTRY_COMPARE_WITH_TIMEOUT(m_core.integer({"EXISTS", key}), qint64(0), 1000);
}

// --- sliding-window counter --------------------------------------------------------------------

void ScenariosTest::slidingWindowCounter()
{
    const Policy policy = store(makePolicy("post", 5, 1000, Algorithm::SlidingWindow));
    for (int i = 1; i <= 5; ++i) {
        const auto hit = m_core.hit(policy, "42");
        QVERIFY2(hit.ok(), hit ? "" : qPrintable(hit.error().toString()));
        QVERIFY(hit->allowed);
        QCOMPARE(hit->count, qint64(i));
    }
    const auto denied = m_core.hit(policy, "42");
    QVERIFY(!denied->allowed);
    QVERIFY(denied->retryAfterMs > 0 && denied->retryAfterMs <= 2000);
    const QByteArray key = m_core.schema().stateKey("42", "post", Algorithm::SlidingWindow, 1000);
    const qint64 ttl = m_core.pttl(key);
    QVERIFY(ttl > 0 && ttl <= 2000);
    // After the retry-after the hit passes: the previous window's weight has faded enough.
    QTRY_VERIFY_WITH_TIMEOUT(m_core.peek(policy, "42")->allowed, 2500);
    QVERIFY(m_core.hit(policy, "42")->allowed);
}

QTEST_GUILESS_MAIN(ScenariosTest)
#include "tst_Scenarios.moc"
