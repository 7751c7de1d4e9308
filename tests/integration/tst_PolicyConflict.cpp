// Policies are saved by compare-and-set on their revision: two operators editing the same
// policy never overwrite each other silently.

#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

class PolicyConflictTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void secondSaveFromSameRevisionConflicts_data();
    void secondSaveFromSameRevisionConflicts();
    void createExistingConflicts();
    void deleteWithStaleRevisionConflicts();

private:
    Result<Policy> get(const QByteArray& action);
    Status remove(const QByteArray& action, qint64 revision);

    CoreFixture m_core;
};

void PolicyConflictTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void PolicyConflictTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

Result<Policy> PolicyConflictTest::get(const QByteArray& action)
{
    return await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get(action, context, std::move(done));
    });
}

Status PolicyConflictTest::remove(const QByteArray& action, qint64 revision)
{
    return await<Unit>([&](QObject* context, Callback<Unit> done) {
        m_core.policies().remove(action, revision, QStringLiteral("test"), context, std::move(done));
    });
}

void PolicyConflictTest::secondSaveFromSameRevisionConflicts_data()
{
    QTest::addColumn<int>("edits"); // revisions saved before the two operators open the editor
    QTest::newRow("fresh policy") << 0;
    QTest::newRow("after 3 edits") << 3;
}

void PolicyConflictTest::secondSaveFromSameRevisionConflicts()
{
    QFETCH(int, edits);
    Policy policy = makePolicy("comment", 10, 30000);
    auto revision = m_core.save(policy);
    QVERIFY(revision.ok());
    QCOMPARE(*revision, qint64(1));
    for (int i = 0; i < edits; ++i) {
        policy.revision = *revision;
        policy.windows[0].limit += 1;
        revision = m_core.save(policy);
        QVERIFY(revision.ok());
    }
    const qint64 base = *revision;

    // Both operators load the same revision.
    Policy alice = *get("comment");
    Policy bob = alice;
    QCOMPARE(alice.revision, base);
    alice.windows[0].limit = 5;
    bob.windows[0].limit = 50;

    const auto first = m_core.save(alice, QStringLiteral("alice"));
    QVERIFY2(first.ok(), first ? "" : qPrintable(first.error().toString()));
    QCOMPARE(*first, base + 1);
    const auto second = m_core.save(bob, QStringLiteral("bob"));
    QVERIFY(!second);
    QCOMPARE(second.error().kind, ErrorKind::Conflict);
    QVERIFY(!second.error().message.isEmpty());

    const auto stored = get("comment");
    QVERIFY(stored.ok());
    QCOMPARE(stored->windows.front().limit, qint64(5));
    QCOMPARE(stored->revision, base + 1);
    QCOMPARE(stored->updatedBy, QStringLiteral("alice"));

    // Bob reloads and saves again: now it works.
    bob.revision = stored->revision;
    QCOMPARE(*m_core.save(bob, QStringLiteral("bob")), base + 2);
    QCOMPARE(get("comment")->windows.front().limit, qint64(50));
}

void PolicyConflictTest::createExistingConflicts()
{
    QVERIFY(m_core.save(makePolicy("like", 10, 10000)).ok());
    const auto again = m_core.save(makePolicy("like", 99, 10000)); // revision 0 = "create"
    QVERIFY(!again);
    QCOMPARE(again.error().kind, ErrorKind::Conflict);
    QCOMPARE(get("like")->windows.front().limit, qint64(10));

    // A revision from the future is no better.
    Policy future = makePolicy("like", 99, 10000);
    future.revision = 7;
    QCOMPARE(m_core.save(future).error().kind, ErrorKind::Conflict);
    // Nor saving "revision 1" of a policy that does not exist.
    Policy missing = makePolicy("ghost", 1, 1000);
    missing.revision = 1;
    QCOMPARE(m_core.save(missing).error().kind, ErrorKind::Conflict);
    QCOMPARE(get("ghost").error().kind, ErrorKind::NotFound);
}

void PolicyConflictTest::deleteWithStaleRevisionConflicts()
{
    Policy policy = makePolicy("upload", 100, 86400000);
    QVERIFY(m_core.save(policy).ok());
    policy.revision = 1;
    policy.windows[0].limit = 200;
    QCOMPARE(*m_core.save(policy), qint64(2));

    const Status stale = remove("upload", 1);
    QVERIFY(!stale);
    QCOMPARE(stale.error().kind, ErrorKind::Conflict);
    QVERIFY(get("upload").ok());

    QVERIFY(remove("upload", 2).ok());
    QCOMPARE(get("upload").error().kind, ErrorKind::NotFound);
}

QTEST_GUILESS_MAIN(PolicyConflictTest)
#include "tst_PolicyConflict.moc"
