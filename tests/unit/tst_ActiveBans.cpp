// core/subjects/BanCensus' ActiveBans: the dashboard's count of bans in force between census
// passes. A ban counts until the millisecond it ends, a permanent one for ever; a ban named
// again replaces its old end; a lifted one leaves at once, also after its end was passed.
#include "core/subjects/BanCensus.h"

#include <QtTest>

using namespace tollgate;

class ActiveBansTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void countsUntilTheEnd();
    void permanentBansStay();
    void replacedAndLifted();
    void aPassReplacesEverything();
};

void ActiveBansTest::countsUntilTheEnd()
{
    ActiveBans bans;
    bans.replace({{"a", "like", 1'000}, {"b", "like", 2'000}, {"c", "post", 1'500}});
    QCOMPARE(bans.count("like", 999), qint64(2));
    QCOMPARE(bans.count("like", 1'000), qint64(1)); // over in the millisecond it ends
    QCOMPARE(bans.count("like", 1'999), qint64(1));
    QCOMPARE(bans.count("like", 2'000), qint64(0));
    QCOMPARE(bans.count("post", 1'499), qint64(1));
    QCOMPARE(bans.count("none", 0), qint64(0));
}

void ActiveBansTest::permanentBansStay()
{
    ActiveBans bans;
    bans.replace({{"a", "", -1}, {"b", "", 10}});
    QCOMPARE(bans.count("", 5), qint64(2));
    QCOMPARE(bans.count("", 1'000'000'000'000), qint64(1));
}

void ActiveBansTest::replacedAndLifted()
{
    ActiveBans bans;
    bans.replace({{"a", "like", 1'000}, {"b", "like", 1'000}});
    bans.apply({"a", "like", 5'000}); // banned again, longer: one ban, the new end
    QCOMPARE(bans.count("like", 0), qint64(2));
    QCOMPARE(bans.count("like", 2'000), qint64(1));
    // b ended at 1,000 and left the count; lifting it afterwards changes nothing.
    bans.apply({"b", "like", -2});
    QCOMPARE(bans.count("like", 2'000), qint64(1));
    bans.apply({"a", "like", -2});
    QCOMPARE(bans.count("like", 2'000), qint64(0));
    // A ban whose end has already passed is not counted.
    bans.apply({"c", "like", 1'500});
    QCOMPARE(bans.count("like", 2'000), qint64(0));
    bans.apply({"d", "like", -1});
    QCOMPARE(bans.count("like", 2'000), qint64(1));
    bans.apply({"d", "like", 3'000}); // made timed
    QCOMPARE(bans.count("like", 2'500), qint64(1));
    QCOMPARE(bans.count("like", 3'000), qint64(0));
    QCOMPARE(bans.actions(), std::vector<QByteArray>{"like"});
}

void ActiveBansTest::aPassReplacesEverything()
{
    ActiveBans bans;
    bans.replace({{"a", "like", -1}, {"b", "post", -1}});
    bans.replace({{"c", "like", 9'000}});
    QCOMPARE(bans.count("like", 0), qint64(1));
    QCOMPARE(bans.count("post", 0), qint64(0));
}

QTEST_GUILESS_MAIN(ActiveBansTest)
#include "tst_ActiveBans.moc"
