// core/limiter/PreparedHit and the Limiter's use of it: the prepared EVALSHA is byte for byte the
// documented hit.lua call (keys from KeySchema, ids escaped), a changed policy (new revision or
// an edited copy) is prepared afresh, and bad input is refused before anything is sent.
#include "core/limiter/PreparedHit.h"
#include "core/scripts/ScriptLibrary.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;
using tollgate::test::RedisServer;

class PreparedHitTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void documentedCall_data();
    void documentedCall();
    void shortFormCall_data();
    void shortFormCall();
    void fullFormForEveryRule_data();
    void fullFormForEveryRule();
    void followsPolicyChanges();
    void refusesBadInputBeforeSending();
    void customCostAndLocalTime();

private:
    CoreFixture m_core;
};

void PreparedHitTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void PreparedHitTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

void PreparedHitTest::documentedCall_data()
{
    QTest::addColumn<QByteArray>("user");
    QTest::addColumn<bool>("peek");
    QTest::newRow("plain") << QByteArray("alice") << false;
    QTest::newRow("peek") << QByteArray("alice") << true;
    QTest::newRow("escaped") << QByteArray("a:b {c}*\n") << false;
    QTest::newRow("utf-8 and a lone byte") << QByteArray("Zo\xC3\xAB\xFF") << false;
}

void PreparedHitTest::documentedCall()
{
    QFETCH(QByteArray, user);
    QFETCH(bool, peek);
    const KeySchema& schema = m_core.schema();
    Policy policy = makePolicy("like it", 10, 60000);
    policy.windows.push_back({100, 3'600'000});
    policy.warn = 3;
    policy.banMs = 1000;
    policy.countDenied = true;
    auto prepared = PreparedHit::prepare(policy, schema);
    QVERIFY(prepared.ok());
    auto command = (*prepared)->command(peek, user, 0);
    QVERIFY(command.ok());

    const QByteArray& action = policy.action;
    Command expected{peek ? "EVALSHA_RO" : "EVALSHA",
                     ScriptLibrary::instance().find(QStringLiteral("hit"))->sha1,
                     "7",
                     schema.userBanKey(user),
                     schema.actionBanKey(user, action),
                     schema.overridesKey(user),
                     schema.userAuditKey(user),
                     schema.auditKey(),
                     schema.stateKey(user, action, Algorithm::FixedWindow, 60000),
                     schema.stateKey(user, action, Algorithm::FixedWindow, 3'600'000),
                     peek ? "peek" : "hit",
                     "fixed_window",
                     "1",
                     "1",
                     "3",
                     "1000",
                     "",
                     "0",
                     user,
                     action,
                     schema.eventsChannel(),
                     "first_hit",
                     "10",
                     "60000",
                     "100",
                     "3600000"};
    QCOMPARE(command->bytes(), RedisServer::encodeCommand(expected));

    // And the server agrees: the call runs (hit.lua checks every key against the ids).
    auto hit = m_core.hit(policy, user);
    QVERIFY2(hit.ok(), qPrintable(hit.ok() ? QString() : hit.error().toString()));
    QCOMPARE(hit->count, qint64(1));
}

// A policy that can never ban, warn, count a denial or need local time goes in hit.lua's
// short form: the ban keys and the state keys, mode, algorithm, cost and the pairs; the ids only
// inside the keys. The server counts it exactly as the full form would (tst_HitDifferential, tst_HitShortForm).
void PreparedHitTest::shortFormCall_data()
{
    documentedCall_data(); // the same ids, each as a hit and one as a peek
}

void PreparedHitTest::shortFormCall()
{
    QFETCH(QByteArray, user);
    QFETCH(bool, peek);
    const KeySchema& schema = m_core.schema();
    Policy policy = makePolicy("up load", 2, 60000);
    policy.windows.push_back({100, 3'600'000});
    auto prepared = PreparedHit::prepare(policy, schema);
    QVERIFY(prepared.ok());
    QVERIFY((*prepared)->shortForm());
    QCOMPARE((*prepared)->keyCount(), qsizetype(5));
    auto command = (*prepared)->command(peek, user, 0);
    QVERIFY(command.ok());

    const QByteArray& action = policy.action;
    const Command expected{peek ? "EVALSHA_RO" : "EVALSHA",
                           ScriptLibrary::instance().find(QStringLiteral("hit"))->sha1,
                           "5",
                           schema.userBanKey(user),
                           schema.actionBanKey(user, action),
                           schema.overridesKey(user),
                           schema.stateKey(user, action, Algorithm::FixedWindow, 60000),
                           schema.stateKey(user, action, Algorithm::FixedWindow, 3'600'000),
                           peek ? "peek" : "hit",
                           "fixed_window",
                           "1",
                           "2",
                           "60000",
                           "100",
                           "3600000"};
    QCOMPARE(command->bytes(), RedisServer::encodeCommand(expected));

    // The server unescapes the ids from the keys and checks them: the hits count, the third
    // is denied, and only the two state keys exist (no audit entry for a plain policy).
    for (qint64 expectedCount : {1, 2}) {
        auto hit = m_core.hit(policy, user);
        QVERIFY2(hit.ok(), qPrintable(hit.ok() ? QString() : hit.error().toString()));
        QVERIFY(hit->allowed);
        QCOMPARE(hit->count, expectedCount);
    }
    auto denied = m_core.hit(policy, user);
    QVERIFY(denied.ok());
    QVERIFY(!denied->allowed);
    QCOMPARE(denied->limit, qint64(2));
    QCOMPARE(m_core.dbsize(), qint64(2));
}

// Each rule that hit.lua needs the full form for (an audit entry, the ids, the offsets) keeps
// the full form, and the server accepts it.
void PreparedHitTest::fullFormForEveryRule_data()
{
    QTest::addColumn<int>("rule");
    QTest::newRow("warn") << 0;
    QTest::newRow("ban") << 1;
    QTest::newRow("count denied") << 2;
    QTest::newRow("ban until midnight") << 3;
    QTest::newRow("calendar") << 4;
}

void PreparedHitTest::fullFormForEveryRule()
{
    QFETCH(int, rule);
    Policy policy = makePolicy("post", 5, 60000);
    switch (rule) {
    case 0: policy.warn = 3; break;
    case 1: policy.banMs = 1000; break;
    case 2: policy.countDenied = true; break;
    case 3: policy.banUntilMidnight = true; break;
    default: policy.calendarAligned = true;
    }
    auto prepared = PreparedHit::prepare(policy, m_core.schema());
    QVERIFY(prepared.ok());
    QVERIFY(!(*prepared)->shortForm());
    QCOMPARE((*prepared)->keyCount(), qsizetype(6));
    auto hit = m_core.hit(policy, "u");
    QVERIFY2(hit.ok(), qPrintable(hit.ok() ? QString() : hit.error().toString()));
    QCOMPARE(hit->count, qint64(1));
}

void PreparedHitTest::followsPolicyChanges()
{
    Limiter& limiter = m_core.limiter(); // one Limiter throughout: its cache is under test
    Policy policy = makePolicy("post", 2, 60000);
    auto saved = m_core.save(policy);
    QVERIFY(saved.ok());
    auto stored = await<Policy>([&](QObject* c, Callback<Policy> done) {
        m_core.policies().get("post", c, std::move(done));
    });
    QVERIFY(stored.ok());
    const auto hit = [&](const Policy& p) {
        return await<HitResult>([&](QObject* c, Callback<HitResult> done) {
            limiter.hit(p, "u1", 0, c, std::move(done));
        });
    };
    QVERIFY(hit(*stored)->allowed);
    QVERIFY(hit(*stored)->allowed);
    QVERIFY(!hit(*stored)->allowed);

    // A new revision with a higher limit: the next hit is counted against it.
    Policy raised = *stored;
    raised.windows = {{5, 60000}};
    QVERIFY(m_core.save(raised).ok());
    auto reread = await<Policy>([&](QObject* c, Callback<Policy> done) {
        m_core.policies().get("post", c, std::move(done));
    });
    QVERIFY(reread.ok());
    QCOMPARE(reread->revision, stored->revision + 1);
    auto after = hit(*reread);
    QVERIFY(after.ok());
    QVERIFY(after->allowed);
    QCOMPARE(after->limit, qint64(5));

    // An edited copy of the same revision is a different policy too.
    Policy edited = *reread;
    edited.windows = {{7, 60000}};
    edited.message = QStringLiteral("slow down");
    QCOMPARE(hit(edited)->limit, qint64(7));
    // And back: the stored policy is prepared again, not served from the edited one.
    QCOMPARE(hit(*reread)->limit, qint64(5));
}

void PreparedHitTest::refusesBadInputBeforeSending()
{
    const quint64 sentBefore = m_core.client()->commandCount();
    Policy noWindows = makePolicy("bad", 1, 1000);
    noWindows.windows.clear();
    auto invalid = m_core.hit(noWindows, "u");
    QVERIFY(!invalid.ok());
    QCOMPARE(invalid.error().kind, ErrorKind::InvalidInput);
    const Policy good = makePolicy("good", 5, 1000);
    for (const QByteArray& user : {QByteArray(), QByteArray(KeySchema::kMaxIdBytes + 1, 'x')}) {
        auto refused = m_core.hit(good, user);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().kind, ErrorKind::InvalidInput);
    }
    for (qint64 cost : {qint64(-1), Policy::kMaxLimit + 1}) {
        auto refused = m_core.hit(good, "u", cost);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().kind, ErrorKind::InvalidInput);
    }
    QCOMPARE(m_core.client()->commandCount(), sentBefore);
    QCOMPARE(m_core.dbsize(), qint64(0));
}

void PreparedHitTest::customCostAndLocalTime()
{
    Policy policy = makePolicy("upload", 100, 86'400'000);
    policy.banUntilMidnight = true;
    policy.timeZone = "Europe/Berlin";
    auto first = m_core.hit(policy, "u", 40);
    QVERIFY2(first.ok(), qPrintable(first.ok() ? QString() : first.error().toString()));
    QCOMPARE(first->count, qint64(40));
    auto second = m_core.hit(policy, "u"); // the policy's cost, 1
    QVERIFY(second.ok());
    QCOMPARE(second->count, qint64(41));
}

QTEST_GUILESS_MAIN(PreparedHitTest)
#include "tst_PreparedHit.moc"
