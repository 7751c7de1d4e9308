// The cluster layout's "{:}" keys (policies, their index and audit stream) sit under the
// pattern <p>:{* that the subject enumeration and repair scan. Wherever they are found (a
// cluster, or a server that once was one), they are never listed as subjects, never reported
// or touched by repair, and never make it fail.

#include "core/keys/KeyLayout.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Repair.h"
#include "tollgate/Subjects.h"

using namespace tollgate;
using namespace tollgate::test;

class SharedTagKeysTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init();
    void notSubjects();
    void notRepairCandidates();

private:
    CoreFixture m_core;
    const KeyLayout m_cluster{KeySchema(), true};
};

void SharedTagKeysTest::init()
{
    QVERIFY(m_core.flush());
    // What policy_set.lua leaves on a cluster, without TTLs, next to one real counter.
    QVERIFY(m_core.inspect({"HSET", m_cluster.policyKey("like"), "windows", "60000:2"}));
    QVERIFY(m_core.inspect({"SADD", m_cluster.policyIndexKey(), "like", "*"}));
    QVERIFY(m_core.inspect({"XADD", m_cluster.policyAuditKey(), "*", "event", "policy"}));
    QVERIFY(m_core.inspect(
        {"SET", m_core.schema().stateKey("ann", "like", Algorithm::FixedWindow, 60000), "1"}));
}

void SharedTagKeysTest::notSubjects()
{
    const Subjects subjects(m_core.client(), m_core.schema());
    auto list = await<SubjectList>([&](QObject* context, Callback<SubjectList> done) {
        subjects.list({}, context, done);
    });
    QVERIFY2(list, qPrintable(list ? QString() : list.error().toString()));
    QCOMPARE(list->subjects.size(), size_t(1));
    QCOMPARE(list->subjects.front().user, QByteArray("ann"));
}

void SharedTagKeysTest::notRepairCandidates()
{
    const Repair repair(m_core.client(), m_core.schema());
    RepairOptions options;
    options.fix = true;
    options.reason = QStringLiteral("lost TTL");
    auto report = await<RepairReport>([&](QObject* context, Callback<RepairReport> done) {
        repair.run(options, {}, context, done);
    });
    QVERIFY2(report, qPrintable(report ? QString() : report.error().toString()));
    QCOMPARE(report->totals.fixed, qint64(1)); // ann's counter only
    QCOMPARE(report->items.front().parsed.user, QByteArray("ann"));
    QCOMPARE(report->skipped, qint64(0));
    QCOMPARE(m_core.pttl(m_cluster.policyKey("like")), qint64(-1));
    QCOMPARE(m_core.integer({"XLEN", m_cluster.policyAuditKey()}), qint64(1));
}

QTEST_MAIN(SharedTagKeysTest)
#include "tst_SharedTagKeys.moc"
