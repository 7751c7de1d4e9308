// hit.lua's edge cases on a real redis-server (issue 6 point 11, issue 11): the end of a ban is a
// fresh window for every algorithm, the script refuses what the contract refuses, a sliding log
// hit costs one member whatever its cost, GCRA keeps its fraction of a µs, the sliding-window
// counter's retry stays within its reset, and midnight follows UTC-offset changes.

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/CoreFixture.h"

#include <QRegularExpression>
#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

Q_DECLARE_METATYPE(tollgate::Algorithm)

namespace {

constexpr qint64 kHour = 3'600'000;
constexpr qint64 kDay = 86'400'000;

// One raw hit.lua call as another language makes it (lua/README.md), defaults filled in.
struct RawHit
{
    QByteArray user = "u";
    QByteArray action = "up";
    QByteArray algorithm = "fixed_window";
    QByteArray cost = "1";
    QByteArray banMs = "0";
    QByteArray banUntil;
    QByteArray offsets = "0";
    QByteArray align = "first_hit";
    QList<QPair<QByteArray, QByteArray>> windows{{"1", "1000"}}; // limit, window_ms
    int dropKeys = 0;                                            // leave keys off the end
    QByteArray firstKey;                                         // instead of the user ban key
};

} // namespace

Q_DECLARE_METATYPE(RawHit)

class LimiterEdgesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void endOfBanIsAFreshWindow_data();
    void endOfBanIsAFreshWindow();
    void scriptRefusesWhatTheContractRefuses_data();
    void scriptRefusesWhatTheContractRefuses();
    void slidingLogHitIsOneMemberWhateverItsCost();
    void slidingLogOldMembersStartOver();
    void gcraKeepsTheFractionOfAMicrosecond();
    void slidingWindowRetryWithinReset();
    void midnightFollowsOffsetChanges_data();
    void midnightFollowsOffsetChanges();

private:
    Result<Reply> raw(const RawHit& hit);
    void waitUntilServer(qint64 ms);

    CoreFixture m_core;
};

void LimiterEdgesTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void LimiterEdgesTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

Result<Reply> LimiterEdgesTest::raw(const RawHit& hit)
{
    const ScriptInfo* script = ScriptLibrary::instance().find(QStringLiteral("hit"));
    if (!script)
        return Error{ErrorKind::NotFound, QStringLiteral("no hit script")};
    if (auto loaded = m_core.inspect({"SCRIPT", "LOAD", script->source}); !loaded)
        return loaded.error();
    const KeySchema& s = m_core.schema();
    const Algorithm algorithm = algorithmFromName(hit.algorithm).value_or(Algorithm::FixedWindow);
    Command keys{s.userBanKey(hit.user), s.actionBanKey(hit.user, hit.action),
                 s.overridesKey(hit.user), s.userAuditKey(hit.user),
                 m_core.layout().auditMirror(s.userAuditKey(hit.user))};
    Command args{"hit",        hit.algorithm, hit.cost, "0",        "0", hit.banMs,
                 hit.banUntil, hit.offsets,   hit.user, hit.action, "",  hit.align};
    for (const auto& [limit, window] : hit.windows) {
        keys << s.stateKey(hit.user, hit.action, algorithm, window.toLongLong());
        args << limit << window;
    }
    if (!hit.firstKey.isEmpty())
        keys[0] = hit.firstKey;
    keys = keys.mid(0, keys.size() - hit.dropKeys);
    return m_core.inspect(Command{"EVALSHA", script->sha1, QByteArray::number(keys.size())} + keys +
                          args);
}

void LimiterEdgesTest::waitUntilServer(qint64 ms)
{
    while (m_core.serverNowMs() < ms)
        QTest::qWait(5);
}

// --- issue 11: limit 2 per 3 s, ban 1 s, hits at 0, 100, 200, 1500, 2000 ms -----------------

void LimiterEdgesTest::endOfBanIsAFreshWindow_data()
{
    QTest::addColumn<Algorithm>("algorithm");
    QTest::newRow("fixed_window") << Algorithm::FixedWindow;
    QTest::newRow("sliding_log") << Algorithm::SlidingLog;
    QTest::newRow("sliding_window") << Algorithm::SlidingWindow;
    QTest::newRow("token_bucket") << Algorithm::TokenBucket;
}

void LimiterEdgesTest::endOfBanIsAFreshWindow()
{
    QFETCH(Algorithm, algorithm);
    Policy policy = makePolicy("post", 2, 3000, algorithm);
    policy.banMs = 1000;
    // The sliding-window counter weighs the previous aligned window: start inside one.
    while (m_core.serverNowMs() % 3000 > 300)
        QTest::qWait(10);
    const qint64 t0 = m_core.serverNowMs();
    QVERIFY(m_core.hit(policy, "7")->allowed);
    waitUntilServer(t0 + 100);
    QVERIFY(m_core.hit(policy, "7")->allowed);
    waitUntilServer(t0 + 200);
    const qint64 beforeDeny = m_core.serverNowMs();
    const auto denied = m_core.hit(policy, "7");
    QVERIFY(denied.ok());
    QCOMPARE(denied->tier, Tier::Deny);
    // The ban is the whole penalty: retry is exactly its end, not the window's.
    QVERIFY2(denied->retryAfterMs > 900 && denied->retryAfterMs <= 1000,
             qPrintable(QString::number(denied->retryAfterMs)));
    const auto banned = m_core.peek(policy, "7");
    QCOMPARE(banned->tier, Tier::Banned);
    QVERIFY(banned->retryAfterMs <= 1000 && banned->retryAfterMs > 0);
    // No window outlives the ban.
    const QByteArray state = m_core.schema().stateKey("7", "post", algorithm, 3000);
    QVERIFY(m_core.pttl(state) <= 1000);

    waitUntilServer(beforeDeny + denied->retryAfterMs + 300); // t0 + ~1500
    const auto fresh = m_core.hit(policy, "7");
    QVERIFY2(fresh->allowed, qPrintable(tierName(fresh->tier)));
    QCOMPARE(fresh->count, qint64(1));
    waitUntilServer(t0 + 2000);
    QVERIFY(m_core.hit(policy, "7")->allowed);
    QCOMPARE(m_core.hit(policy, "7")->tier, Tier::Deny); // and the fresh window is a real one
}

// --- the script enforces the contract itself --------------------------------------------------

void LimiterEdgesTest::scriptRefusesWhatTheContractRefuses_data()
{
    QTest::addColumn<RawHit>("hit");
    QTest::addColumn<QString>("message");
    const auto with = [](auto change) {
        RawHit hit;
        change(hit);
        return hit;
    };
    QTest::newRow("no keys") << with([](RawHit& h) { h.dropKeys = 5; }) << QStringLiteral("keys");
    QTest::newRow("no state key") << with([](RawHit& h) { h.dropKeys = 1; })
                                  << QStringLiteral("keys");
    QTest::newRow("empty user") << with([](RawHit& h) { h.user = ""; })
                                << QStringLiteral("user id");
    QTest::newRow("1025-byte user")
        << with([](RawHit& h) { h.user = QByteArray(1025, 'u'); }) << QStringLiteral("user id");
    QTest::newRow("unescaped key") << with([](RawHit& h) {
        h.user = "a:b";
        h.firstKey = "tg:{a:b}:ban"; // must be tg:{a%3Ab}:ban
    }) << QStringLiteral("expected \"tg:{a%3Ab}:ban\"");
    QTest::newRow("key of another user") << with([](RawHit& h) { h.firstKey = "tg:{v}:ban"; })
                                         << QStringLiteral("expected \"tg:{u}:ban\"");
    QTest::newRow("empty action") << with([](RawHit& h) { h.action = ""; })
                                  << QStringLiteral("action id");
    QTest::newRow("same window twice") << with([](RawHit& h) {
        h.windows = {{"1", "1000"}, {"2", "1000"}};
    }) << QStringLiteral("twice");
    QTest::newRow("nine windows") << with([](RawHit& h) {
        h.windows.clear();
        for (int i = 1; i <= 9; ++i)
            h.windows.append({"5", QByteArray::number(i * 1000)});
    }) << QStringLiteral("at most 8");
    QTest::newRow("bad offsets") << with([](RawHit& h) { h.offsets = "3600000,abc"; })
                                 << QStringLiteral("utc offsets");
    QTest::newRow("offsets out of order")
        << with([](RawHit& h) { h.offsets = "0,2000:3600000,1000:0"; })
        << QStringLiteral("utc offsets");
    QTest::newRow("calendar 30s") << with([](RawHit& h) {
        h.align = "calendar";
        h.windows = {{"1", "30000"}};
    }) << QStringLiteral("calendar");
    QTest::newRow("calendar sliding_log") << with([](RawHit& h) {
        h.align = "calendar";
        h.algorithm = "sliding_log";
    }) << QStringLiteral("calendar");
}

void LimiterEdgesTest::scriptRefusesWhatTheContractRefuses()
{
    QFETCH(RawHit, hit);
    QFETCH(QString, message);
    const auto reply = raw(hit);
    QVERIFY(!reply);
    QCOMPARE(reply.error().kind, ErrorKind::InvalidInput); // TG_INVALID
    // On a cluster, keys of two slots are refused before the script runs, with the client's reason.
    const bool refusedBeforeSending =
        m_core.onCluster() && reply.error().message.contains(QStringLiteral("cluster slots"));
    QVERIFY2(refusedBeforeSending || reply.error().message.contains(message),
             qPrintable(reply.error().message));
    QCOMPARE(m_core.dbsize(), qint64(0));
}

// --- sliding log: one member per hit, totals as members -------------------------------------

void LimiterEdgesTest::slidingLogHitIsOneMemberWhateverItsCost()
{
    const Policy policy = makePolicy("api", 100'000, 60'000, Algorithm::SlidingLog);
    const QByteArray key = m_core.schema().stateKey("9", "api", Algorithm::SlidingLog, 60'000);
    const auto big = m_core.hit(policy, "9", 100'000);
    QVERIFY(big->allowed);
    QCOMPARE(big->count, qint64(100'000));
    QCOMPARE(m_core.integer({"ZCARD", key}), qint64(1));
    QVERIFY(m_core.integer({"MEMORY", "USAGE", key}) < 1000);
    QCOMPARE(m_core.hit(policy, "9", 1)->tier, Tier::Deny);

    QVERIFY(m_core.flush());
    for (int i = 0; i < 3; ++i)
        QVERIFY(m_core.hit(policy, "9", 30'000)->allowed);
    QCOMPARE(m_core.integer({"ZCARD", key}), qint64(3));
    const auto denied = m_core.hit(policy, "9", 20'000);
    QCOMPARE(denied->tier, Tier::Deny);
    QCOMPARE(denied->count, qint64(90'000));
    // 20,000 more fit once the first 30,000 leave: a window after the first hit.
    QVERIFY2(denied->retryAfterMs > 50'000 && denied->retryAfterMs <= 60'000,
             qPrintable(QString::number(denied->retryAfterMs)));
    QVERIFY(m_core.hit(policy, "9", 10'000)->allowed);
    QCOMPARE(m_core.peek(policy, "9", 1)->count, qint64(100'000));
}

void LimiterEdgesTest::slidingLogOldMembersStartOver()
{
    // Logs of the "<us>-<seq>" format (one member per unit) are replaced, not misread.
    const Policy policy = makePolicy("api", 10, 60'000, Algorithm::SlidingLog);
    const QByteArray key = m_core.schema().stateKey("9", "api", Algorithm::SlidingLog, 60'000);
    const QByteArray us = QByteArray::number(m_core.serverNowMs() * 1000);
    QVERIFY(m_core.inspect({"ZADD", key, us, us + "-0000001", us, us + "-0000002"}));
    QVERIFY(m_core.inspect({"PEXPIRE", key, "60000"}));
    const auto hit = m_core.hit(policy, "9", 3);
    QVERIFY(hit->allowed);
    QCOMPARE(hit->count, qint64(3));
    QCOMPARE(m_core.integer({"ZCARD", key}), qint64(1));
}

// --- GCRA: 600,000 per second is 1.67 µs per unit, not 1 ------------------------------------

void LimiterEdgesTest::gcraKeepsTheFractionOfAMicrosecond()
{
    const Policy policy = makePolicy("feed", 600'000, 1000, Algorithm::TokenBucket);
    const QByteArray key = m_core.schema().stateKey("9", "feed", Algorithm::TokenBucket, 1000);
    // 300,001 units of 1,000,000/600,000 µs = 500,001 µs + 400,000/600,000 µs: the remainder
    // is kept. (One unit's TAT, 1.7 µs ahead, left a key that expired within a millisecond, so
    // on a busy machine the GET below could find it gone.)
    QVERIFY(m_core.hit(policy, "9", 300'001)->allowed);
    const QByteArray tat = m_core.bytes({"GET", key});
    QVERIFY2(QRegularExpression(QStringLiteral("^\\d+\\+400000/600000$"))
                 .match(QString::fromLatin1(tat))
                 .hasMatch(),
             tat.constData());
    // A full bucket's worth passes once, the same again does not.
    QVERIFY(m_core.flush());
    QVERIFY(m_core.hit(policy, "9", 600'000)->allowed);
    QCOMPARE(m_core.hit(policy, "9", 600'000)->tier, Tier::Deny);
}

// --- sliding-window counter: limit 1,000,000 per 40 ms, cost 500,000 then 1,000,000 ----------

void LimiterEdgesTest::slidingWindowRetryWithinReset()
{
    const Policy policy = makePolicy("bulk", 1'000'000, 40, Algorithm::SlidingWindow);
    for (int i = 0; i < 30; ++i) {
        const QByteArray user = QByteArray::number(i);
        QVERIFY(m_core.hit(policy, user, 500'000)->allowed);
        const auto denied = m_core.hit(policy, user, 1'000'000);
        QVERIFY(denied.ok());
        if (denied->allowed)
            continue; // the previous window's weight had already faded out
        QVERIFY2(denied->retryAfterMs >= 1 && denied->retryAfterMs <= denied->resetMs,
                 qPrintable(QStringLiteral("retry %1 reset %2")
                                .arg(denied->retryAfterMs)
                                .arg(denied->resetMs)));
    }
}

// --- midnight across UTC-offset changes (synthetic tables around the server's now) ----------

void LimiterEdgesTest::midnightFollowsOffsetChanges_data()
{
    QTest::addColumn<qint64>("changeAt"); // ms from now; 0 = no change
    QTest::addColumn<qint64>("shift");    // offset after the change minus before
    QTest::addColumn<qint64>(
        "expectedEnd"); // midnight, ms after "now + 2 h"; -1 = the change itself
    QTest::newRow("no change") << qint64(0) << qint64(0) << qint64(0);
    QTest::newRow("spring forward at +30m") << 30 * 60'000LL << kHour << -kHour;
    QTest::newRow("fall back at +30m") << 30 * 60'000LL << -kHour << kHour;
    QTest::newRow("change after midnight") << 3 * kHour << kHour << qint64(0);
    QTest::newRow("change an hour ago") << -kHour << kHour << qint64(0);
    QTest::newRow("midnight skipped") << 90 * 60'000LL << kHour << qint64(-1);
}

void LimiterEdgesTest::midnightFollowsOffsetChanges()
{
    QFETCH(qint64, changeAt);
    QFETCH(qint64, shift);
    QFETCH(qint64, expectedEnd);
    // An offset that puts local midnight 2 h from now, within +-12 h.
    const qint64 now = m_core.serverNowMs();
    qint64 offset = (kDay - 2 * kHour - now % kDay) % kDay;
    if (offset >= 12 * kHour)
        offset -= kDay;
    const qint64 change = now + changeAt;
    const qint64 before = changeAt < 0 ? offset - shift : offset; // in force before the change
    const qint64 at = changeAt < 0 ? offset : offset + shift;
    RawHit hit;
    hit.user = "night";
    hit.banUntil = "midnight";
    hit.align = "calendar";
    hit.windows = {{"1", QByteArray::number(kDay)}};
    hit.offsets = changeAt == 0 ? QByteArray::number(offset)
                                : QByteArray::number(before) + ',' + QByteArray::number(change) +
                                      ':' + QByteArray::number(at);
    const qint64 midnight = now + 2 * kHour + expectedEnd;
    const qint64 expected = expectedEnd == -1 ? change : midnight;

    QVERIFY(raw(hit).ok());
    // The calendar day ends at the same instant as the ban: a fresh day after it.
    const QByteArray counter =
        m_core.schema().stateKey("night", "up", Algorithm::FixedWindow, kDay);
    const qint64 ttl = m_core.pttl(counter);
    QVERIFY2(qAbs(now + ttl - expected) < 2000, qPrintable(QStringLiteral("ttl %1").arg(ttl)));
    const auto denied = raw(hit);
    QVERIFY(denied.ok());
    QCOMPARE(denied->elements[1].toBytes(), QByteArray("deny"));
    const qint64 until =
        m_core.bytes({"HGET", m_core.schema().actionBanKey("night", "up"), "until_ms"})
            .toLongLong();
    QCOMPARE(until, expected);
}

QTEST_GUILESS_MAIN(LimiterEdgesTest)
#include "tst_LimiterEdges.moc"
