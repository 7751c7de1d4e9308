// The failure policy against a real server that is stopped and started again: fail-open,
// fail-closed and the insurance limiter answer while Redis cannot, each saying so in
// decidedBy; refusals and bad data stay errors; once Redis is back, Redis decides again.
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

class tst_FailurePolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void serverDown_data();
    void serverDown();
    void insuranceCountsAndScales();
    void policyChoosesWhenCallerDoesNot();
    void refusalsAreNotMasked();
    void backToRedisAfterRestart();
    void onErrorIsStoredWithThePolicy();

private:
    Result<HitResult> hit(const Limiter& limiter, const Policy& policy, const QByteArray& user,
                          bool count = true)
    {
        return await<HitResult>([&](QObject* context, Callback<HitResult> done) {
            if (count)
                limiter.hit(policy, user, 0, context, std::move(done));
            else
                limiter.peek(policy, user, 0, context, std::move(done));
        });
    }
    void stopServer()
    {
        m_core.server().stop();
        QTRY_VERIFY(m_core.client()->state() != ConnectionState::Connected);
    }

    CoreFixture m_core;
};

void tst_FailurePolicy::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void tst_FailurePolicy::init()
{
    if (!m_core.server().isRunning()) {
        QVERIFY(m_core.server().restart());
        QTRY_COMPARE_WITH_TIMEOUT(m_core.client()->state(), ConnectionState::Connected, 10000);
    }
    // The fixture's inspection client reconnects on its own schedule.
    QTRY_VERIFY_WITH_TIMEOUT(m_core.flush(), 10000);
}

void tst_FailurePolicy::serverDown_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("allowed");
    QTest::addColumn<QString>("decidedBy");
    QTest::newRow("fail open") << int(FailureMode::FailOpen) << true << QStringLiteral("fail_open");
    QTest::newRow("fail closed") << int(FailureMode::FailClosed) << false
                                 << QStringLiteral("fail_closed");
    QTest::newRow("insurance") << int(FailureMode::Insurance) << true
                               << QStringLiteral("insurance");
}

void tst_FailurePolicy::serverDown()
{
    QFETCH(int, mode);
    QFETCH(bool, allowed);
    QFETCH(QString, decidedBy);
    const Policy policy = makePolicy("comment", 10, 30000);
    Limiter limiter(m_core.client(), m_core.schema());
    limiter.setFailureMode(FailureMode(mode), std::make_shared<InsuranceLimiter>());
    stopServer();

    const Result<HitResult> result = hit(limiter, policy, "u1");
    QVERIFY2(result, qPrintable(result ? QString() : result.error().toString()));
    QCOMPARE(result->allowed, allowed);
    QCOMPARE(decidedByName(result->decidedBy), decidedBy);
    QVERIFY2(!result->redisError.isEmpty(), "the result says why Redis did not decide");

    // Report (the default) delivers the error itself.
    const Result<HitResult> reported = hit(Limiter(m_core.client(), m_core.schema()), policy, "u1");
    QVERIFY(!reported);
    QVERIFY(isUnavailable(reported.error()));
}

void tst_FailurePolicy::insuranceCountsAndScales()
{
    Policy policy = makePolicy("like", 10, 60000);
    policy.windows.push_back({15, 3600000});
    Limiter limiter(m_core.client(), m_core.schema());
    InsuranceLimiter::Options options;
    options.factor = 0.5; // two application instances share the limit
    auto insurance = std::make_shared<InsuranceLimiter>(options);
    limiter.setFailureMode(FailureMode::Insurance, insurance);
    stopServer();

    // A peek counts nothing.
    for (int i = 0; i < 3; ++i)
        QVERIFY(hit(limiter, policy, "abuser", false)->allowed);
    for (int i = 1; i <= 5; ++i) {
        const Result<HitResult> result = hit(limiter, policy, "abuser");
        QVERIFY2(result && result->allowed, qPrintable(QStringLiteral("hit %1").arg(i)));
        QCOMPARE(result->decidedBy, DecidedBy::Insurance);
        QCOMPARE(result->limit, qint64(5)); // the minute window: 10 * 0.5, least room left
        QCOMPARE(result->remaining, qint64(5 - i));
    }
    const Result<HitResult> denied = hit(limiter, policy, "abuser");
    QVERIFY(denied);
    QVERIFY(!denied->allowed);
    QCOMPARE(denied->tier, Tier::Deny);
    QVERIFY(denied->retryAfterMs > 0);
    QVERIFY(denied->retryAfterMs <= 60000);
    // Another user has windows of their own.
    QVERIFY(hit(limiter, policy, "neighbour")->allowed);
}

void tst_FailurePolicy::policyChoosesWhenCallerDoesNot()
{
    Policy closed = makePolicy("upload", 10, 30000);
    closed.onError = FailureMode::FailClosed;
    Policy open = makePolicy("view", 10, 30000);
    open.onError = FailureMode::FailOpen;
    const Limiter byPolicy(m_core.client(), m_core.schema());
    Limiter byCaller(m_core.client(), m_core.schema());
    byCaller.setFailureMode(FailureMode::FailOpen);
    stopServer();

    QCOMPARE(hit(byPolicy, closed, "u")->decidedBy, DecidedBy::FailClosed);
    QCOMPARE(hit(byPolicy, open, "u")->decidedBy, DecidedBy::FailOpen);
    // The caller's choice wins over the policy's.
    const Result<HitResult> overridden = hit(byCaller, closed, "u");
    QCOMPARE(overridden->decidedBy, DecidedBy::FailOpen);
    QVERIFY(overridden->allowed);
}

void tst_FailurePolicy::refusalsAreNotMasked()
{
    // Redis answers, with an error about our data: fail-open must not hide it.
    const Policy policy = makePolicy("comment", 10, 30000);
    const QByteArray state = m_core.schema().stateKey("u", "comment", Algorithm::FixedWindow, 30000);
    QVERIFY(m_core.inspect({"HSET", state, "f", "v"}));
    Limiter limiter(m_core.client(), m_core.schema());
    limiter.setFailureMode(FailureMode::FailOpen);
    const Result<HitResult> result = hit(limiter, policy, "u");
    QVERIFY(!result);
    QCOMPARE(result.error().kind, ErrorKind::WrongType);
}

void tst_FailurePolicy::backToRedisAfterRestart()
{
    const Policy policy = makePolicy("comment", 2, 30000);
    Limiter limiter(m_core.client(), m_core.schema());
    limiter.setFailureMode(FailureMode::FailOpen);
    QCOMPARE(hit(limiter, policy, "u")->decidedBy, DecidedBy::Redis);
    stopServer();
    QCOMPARE(hit(limiter, policy, "u")->decidedBy, DecidedBy::FailOpen);

    QVERIFY(m_core.server().restart());
    // The client reconnects by itself; from then on Redis decides, and counts, again.
    QTRY_VERIFY_WITH_TIMEOUT(hit(limiter, policy, "u")->decidedBy == DecidedBy::Redis, 15000);
    const Result<HitResult> counted = hit(limiter, policy, "u");
    QCOMPARE(counted->decidedBy, DecidedBy::Redis);
    QVERIFY(counted->count >= 2);
}

void tst_FailurePolicy::onErrorIsStoredWithThePolicy()
{
    Policy policy = makePolicy("search", 10, 30000);
    policy.onError = FailureMode::Insurance;
    QVERIFY(m_core.save(policy));
    const Result<Policy> loaded = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("search", context, std::move(done));
    });
    QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error().toString()));
    QCOMPARE(loaded->onError, FailureMode::Insurance);
    QCOMPARE(m_core.bytes({"HGET", m_core.schema().policyKey("search"), "on_error"}),
             QByteArray("insurance"));
    // A value nobody understands makes the stored policy invalid, not silently "report".
    QVERIFY(m_core.inspect({"HSET", m_core.schema().policyKey("search"), "on_error", "maybe"}));
    const Result<Policy> bad = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("search", context, std::move(done));
    });
    QVERIFY(!bad);
    QVERIFY(bad.error().message.contains(QStringLiteral("on_error")));
}

QTEST_GUILESS_MAIN(tst_FailurePolicy)
#include "tst_FailurePolicy.moc"
