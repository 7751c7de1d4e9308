// The sliding window's fast path (lua/hit.lua) beyond the random sequences of tst_HitDifferential:
// within one window it writes cur alone and checks HSET and PEXPIRE by running them, writing cur's
// old digits back when PEXPIRE is refused; a new window (three fields on a hash that may not
// exist) asks about PEXPIRE first. Each row builds the counter on both prefixes alike, hits it
// once in each form (full and short) and checks that lua/hit.lua and the frozen reference agree in
// reply and state, and that lua/hit.lua went the way the row says (tests/reference/differential.lua).
#include "tests/support/HitDifferential.h"
#include "tests/support/TestEnv.h"

#include <QDateTime>
#include <QThread>
#include <QtTest>

using tollgate::test::DifferentialOutcome;
using tollgate::test::HitDifferential;
using tollgate::test::RedisServer;
using Step = tollgate::test::DifferentialStep;

namespace {

constexpr qint64 kWindow = 3'600'000; // an hour: the hit lands in the window the row built
const QByteArray kState = "tgR:{u}:a:sw:3600000";
const QList<QByteArray> kCompared{kState, "tgR:{u}:a:ban", "tgR:{u}:audit", "tgR:{u}:ban"};

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

} // namespace

class SlidingWindowBranchesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void branchesAgree_data();
    void branchesAgree();

private:
    // A command on the state key of both prefixes (through the wrapper's "raw"); empty when fine.
    QByteArray onBoth(const QList<QByteArray>& command);

    RedisServer m_redis;
    HitDifferential m_scripts;
};

void SlidingWindowBranchesTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    const QByteArray failure = m_scripts.load(m_redis);
    QVERIFY2(failure.isEmpty(), failure.constData());
    const QByteArray users = tollgate::test::addRefusingUsers(m_redis);
    QVERIFY2(users.isEmpty(), users.constData());
}

QByteArray SlidingWindowBranchesTest::onBoth(const QList<QByteArray>& command)
{
    return m_scripts.run(m_redis, {{kState}, "raw", command}, kCompared).difference;
}

void SlidingWindowBranchesTest::branchesAgree_data()
{
    QTest::addColumn<int>("windowsAgo"); // where the stored counts started: -1 = no counter
    QTest::addColumn<qint64>("cur");     // its count (the limit is 10 per hour, the cost 2)
    QTest::addColumn<bool>("ttl");
    QTest::addColumn<QByteArray>("aclUser"); // empty: the default user
    QTest::addColumn<QByteArray>("path");
    auto row = [](const char* name, int windowsAgo, qint64 cur, bool ttl, const QByteArray& aclUser,
                  const QByteArray& path) {
        QTest::newRow(name) << windowsAgo << cur << ttl << aclUser << path;
    };
    row("new", -1, 0, false, {}, "fast");
    row("within the window", 0, 3, true, {}, "fast");
    row("within, without TTL", 0, 3, false, {}, "fast");
    row("window moved", 1, 3, true, {}, "fast");
    row("two windows passed", 3, 3, true, {}, "fast");
    row("within, denied", 0, 9, true, {}, "fast");
    row("within, PEXPIRE refused", 0, 3, true, "nopexpire", "slow:undo");
    row("within, HSET refused", 0, 3, true, "nohset", "slow");
    row("moved, PEXPIRE refused", 1, 3, true, "nopexpire", "slow");
    row("new, PEXPIRE refused", -1, 0, false, "nopexpire", "slow");
}

void SlidingWindowBranchesTest::branchesAgree()
{
    QFETCH(int, windowsAgo);
    QFETCH(qint64, cur);
    QFETCH(bool, ttl);
    QFETCH(QByteArray, aclUser);
    QFETCH(QByteArray, path);
    for (const QByteArray form : {"hit", "hit_short"}) {
        QCOMPARE(m_scripts.run(m_redis, {kCompared, "raw", {"DEL"}}, kCompared).difference,
                 QByteArray());
        // Not within the last seconds of the hour: the hit must see the window built here.
        while ((QDateTime::currentMSecsSinceEpoch() + 3000) % kWindow < 3000)
            QThread::msleep(500);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const qint64 start = now / kWindow * kWindow - windowsAgo * kWindow;
        if (windowsAgo >= 0) {
            QCOMPARE(onBoth({"HSET", "start", num(start), "cur", num(cur), "prev", "0"}), QByteArray());
            if (ttl)
                QCOMPARE(onBoth({"PEXPIREAT", num(now + kWindow)}), QByteArray());
        }
        const Step hit{{"tgR:{u}:ban", "tgR:{u}:a:ban", "tgR:{u}:audit", "tgR:audit", kState},
                       form,
                       {"hit", "sliding_window", "2", "0", "0", "0", "", "0", "u", "a", "",
                        "first_hit", "10", num(kWindow)}};
        if (!aclUser.isEmpty())
            m_redis.setAuth(tollgate::test::kRefusingPassword, aclUser);
        const DifferentialOutcome outcome = m_scripts.run(m_redis, hit, kCompared);
        m_redis.setAuth({}, {});
        QVERIFY2(outcome.difference.isEmpty(), QByteArray(form + ": " + outcome.difference).constData());
        QCOMPARE(outcome.path, path);
    }
}

QTEST_GUILESS_MAIN(SlidingWindowBranchesTest)
#include "tst_SlidingWindowBranches.moc"
