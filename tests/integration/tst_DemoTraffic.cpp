// The demo's traffic follows the stored policies: an operator who edits, adds or deletes a
// policy in the console sees the traffic change, instead of the start-up copy being hit forever.

#include "core/demo/DemoTraffic.h"
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

    // A new action gets traffic of its own.
    QVERIFY(m_core.save(makePolicy("poll", 1000, 60'000)));
    QTRY_VERIFY_WITH_TIMEOUT(hasTraffic("poll"), 10000);

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
