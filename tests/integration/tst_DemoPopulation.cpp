// `tollgate --demo --subjects N` seeds what it says: N subjects on the example actions, the
// bans and overrides of DemoPopulation::shapeOf(N), each ban and override audited.

#include "app/demo/DemoPopulation.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Overrides.h"
#include "tollgate/Subjects.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;

class DemoPopulationTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void seedsTheSubjectsItSays();

private:
    CoreFixture m_core;
};

void DemoPopulationTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void DemoPopulationTest::seedsTheSubjectsItSays()
{
    constexpr qint64 kSubjects = 2000;
    DemoPopulation population(m_core.options(), m_core.schema());
    std::optional<Status> finished;
    connect(&population, &DemoPopulation::finished, this,
            [&finished](const Status& status) { finished = status; });
    population.seed(kSubjects);
    QTRY_VERIFY_WITH_TIMEOUT(finished.has_value(), 30000);
    QVERIFY2(*finished, qPrintable(*finished ? QString() : finished->error().toString()));

    const DemoPopulation::Shape shape = DemoPopulation::shapeOf(kSubjects);
    QCOMPARE(shape.actionBans, 20);
    QCOMPARE(shape.userBans, 2);
    QCOMPARE(shape.limitOverrides, 2);
    QCOMPARE(shape.exemptions, 2);

    const Subjects subjects(m_core.client(), m_core.schema());
    auto list = await<SubjectList>(
        [&](QObject* context, Callback<SubjectList> done) { subjects.list({}, context, done); });
    QVERIFY2(list, qPrintable(list ? QString() : list.error().toString()));
    QCOMPARE(qint64(list->subjects.size()), kSubjects);
    qint64 actionBans = 0, userBans = 0, uploads = 0, searches = 0;
    for (const Subject& s : list->subjects) {
        actionBans += s.ban.has_value();
        userBans += s.userBan.has_value();
        uploads += s.action == "upload";
        QVERIFY(!s.userBan || s.action.isEmpty());
        searches += s.action == "search";
        QVERIFY2(s.user.startsWith("member-"), s.user.constData());
    }
    QCOMPARE(actionBans, shape.actionBans);
    QCOMPARE(userBans, shape.userBans);
    QCOMPARE(uploads, kSubjects * 6 / 10 - shape.userBans); // those are the user-wide bans' rows
    QCOMPARE(searches, kSubjects * 4 / 10);
    // Counters carry the TTL the scripts give them: none is left without one.
    QVERIFY(m_core.pttl(m_core.schema().stateKey(DemoPopulation::userOf(0), "upload",
                                                 Algorithm::FixedWindow, 86'400'000)) > 0);
    QVERIFY(m_core.pttl(m_core.schema().stateKey(DemoPopulation::userOf(9), "search",
                                                 Algorithm::FixedWindow, 3'600'000)) > 0);

    // A seeded counter's count over its window's age is a person's pace (at most 3 searches a
    // minute), so the near-limit list, fastest first, shows the live abusers above them.
    double fastest = 0;
    for (qint64 i = 6; i < kSubjects; i += 10) {
        const QByteArray key = m_core.schema().stateKey(DemoPopulation::userOf(i), "search",
                                                        Algorithm::FixedWindow, 3'600'000);
        const qint64 count = m_core.bytes({"GET", key}).toLongLong();
        const qint64 age = 3'600'000 - m_core.pttl(key);
        QVERIFY2(count > 0 && age > 0, key.constData());
        fastest = std::max(fastest, double(count) * 60'000 / double(age));
    }
    QVERIFY2(fastest <= 3.1, qPrintable(QString::number(fastest)));

    auto overrides =
        await<std::vector<Override>>([&](QObject* context, Callback<std::vector<Override>> done) {
            OverrideStore(m_core.client(), m_core.schema()).list({}, context, done);
        });
    QVERIFY2(overrides, qPrintable(overrides ? QString() : overrides.error().toString()));
    qint64 limits = 0, exempt = 0;
    for (const Override& o : *overrides)
        (o.kind == OverrideKind::Unlimited ? exempt : limits) += 1;
    QCOMPARE(limits, shape.limitOverrides);
    QCOMPARE(exempt, shape.exemptions);

    // Bans went through ban.lua: each one is in the user's audit trail.
    auto audit = m_core.userAudit(DemoPopulation::userOf(3));
    QVERIFY(audit && !audit->empty());
}

QTEST_GUILESS_MAIN(DemoPopulationTest)
#include "tst_DemoPopulation.moc"
