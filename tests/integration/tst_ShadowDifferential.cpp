// hit.lua's mode "shadow" against the frozen reference's enforced hit (tests/reference/README.md):
// random sequences per algorithm run through differential.lua's "shadow" operation, which starts
// both prefixes from the shadow side's state, runs the reference with mode "hit" and lua/hit.lua
// with mode "shadow" under one frozen clock, and requires the shadow reply to be the enforced one
// with allowed 1, "" and 1 (2 when the enforced hit wrote its automatic ban), the state keys left
// as enforcing left them, and, where enforcing banned, no ban, no audit entry and the windows'
// expiries untouched. Manual bans, unbans and time passing come in between (only the shadow
// hits compare: the enforced side's state is the shadow side's again before each); ACL users that may not
// run one of the writes must be refused alike (nothing written).

#include "tests/support/HitDifferential.h"
#include "tests/support/TestEnv.h"

#include <QRandomGenerator>
#include <QThread>
#include <QtTest>
#include <algorithm>

using tollgate::test::HitDifferential;
using tollgate::test::RedisServer;
using Step = tollgate::test::DifferentialStep;

namespace {

const QList<QPair<QByteArray, QByteArray>> kUsers{{"u1", "u1"}, {"a:b", "a%3Ab"}};
const QByteArray kAction = "like";

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

} // namespace

class ShadowDifferentialTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void shadowAnswersAsEnforced_data();
    void shadowAnswersAsEnforced();

private:
    int pick(int n) { return int(m_rng.bounded(n)); }
    bool chance(int percent) { return pick(100) < percent; }
    qint64 between(qint64 lo, qint64 hi) { return lo + qint64(m_rng.bounded(quint64(hi - lo + 1))); }
    QByteArray userKey(int user, const QByteArray& suffix) const
    {
        return "tgR:{" + kUsers[user].second + "}" + suffix;
    }
    // The arguments of one policy's hit after mode and algorithm, with its state keys.
    Step randomShadowHit(int algorithm, int user);
    Step banStep(int user);
    Step unbanStep(int user);

    RedisServer m_redis;
    HitDifferential m_scripts;
    QRandomGenerator m_rng;
    Step m_policy; // the current policy, as a hit of user 0
};

void ShadowDifferentialTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    const QByteArray failure = m_scripts.load(m_redis);
    QVERIFY2(failure.isEmpty(), failure.constData());
    const QByteArray users = tollgate::test::addRefusingUsers(m_redis);
    QVERIFY2(users.isEmpty(), users.constData());
}

Step ShadowDifferentialTest::randomShadowHit(int algorithm, int user)
{
    Step step;
    step.operation = "shadow";
    step.keys << userKey(user, ":ban") << userKey(user, ":" + kAction + ":ban")
              << userKey(user, ":audit") << (chance(70) ? QByteArray("tgR:audit") : QByteArray());
    const bool calendar = algorithm == 0 && chance(15);
    const QList<qint64> spans = calendar ? QList<qint64>{60000, 3600000}
                                         : QList<qint64>{30, 80, 200, 60000};
    QList<QPair<qint64, qint64>> windows; // limit, window_ms
    const int count = chance(70) ? 1 : 2;
    for (int i = 0; i < count; ++i) {
        const qint64 span = spans[i == 0 ? pick(spans.size()) : (spans.indexOf(windows[0].second) + 1) % spans.size()];
        windows.append({between(1, 5), span});
    }
    const bool countDenied = chance(40);
    const qint64 warn = chance(30) ? between(1, windows[0].first) : 0;
    const int ban = pick(100);
    const qint64 banMs = ban < 60 ? 0 : ban < 90 ? between(20, 150) : 3'600'000;
    const bool midnight = chance(10);
    step.args << "shadow" << tollgate::test::kHitAlgorithms[algorithm] << num(chance(80) ? 1 : 2)
              << (countDenied ? "1" : "0") << num(warn) << num(banMs) << (midnight ? "midnight" : "")
              << "0" << kUsers[user].first << kAction << (chance(20) ? "tgR:events" : "")
              << (calendar ? "calendar" : "first_hit");
    for (const auto& [limit, span] : windows) {
        step.args << num(limit) << num(span);
        step.keys << userKey(user, ":" + kAction + ":" + tollgate::test::kHitCodes[algorithm] + ":" + num(span));
    }
    return step;
}

Step ShadowDifferentialTest::banStep(int user)
{
    Step step;
    step.operation = "ban";
    step.keys << userKey(user, ":" + kAction + ":ban") << userKey(user, ":audit") << "tgR:audit";
    step.args << kUsers[user].first << kAction << "op" << "by hand" << num(between(10, 200)) << "0" << "";
    return step;
}

Step ShadowDifferentialTest::unbanStep(int user)
{
    Step step;
    step.operation = "unban";
    step.keys << userKey(user, ":audit") << "tgR:audit" << userKey(user, ":ban")
              << userKey(user, ":" + kAction + ":ban");
    step.args << kUsers[user].first << kAction << "op" << "lifted" << "";
    return step;
}

void ShadowDifferentialTest::shadowAnswersAsEnforced_data()
{
    QTest::addColumn<int>("algorithm");
    for (int i = 0; i < tollgate::test::kHitAlgorithms.size(); ++i)
        QTest::newRow(tollgate::test::kHitAlgorithms[i].constData()) << i;
}

void ShadowDifferentialTest::shadowAnswersAsEnforced()
{
    QFETCH(int, algorithm);
    m_redis.command({"FLUSHALL"});
    m_rng.seed(quint32(20261128 + algorithm));
    QMap<QByteArray, int> outcomes;
    Step policies[2];
    const QList<QByteArray> aclUsers{"noset", "noxadd", "nopexpire", "nohset", "nozadd"};
    const int cases = 700;
    for (int i = 0; i < cases; ++i) {
        const int user = pick(2);
        if (policies[user].keys.isEmpty() || chance(5))
            policies[user] = randomShadowHit(algorithm, user);
        const int roll = pick(100);
        const Step step = roll < 90 ? policies[user] : roll < 95 ? banStep(user) : unbanStep(user);
        QList<QByteArray> compared{userKey(user, ":ban"), userKey(user, ":" + kAction + ":ban"),
                                   userKey(user, ":audit"), "tgR:audit"};
        compared += policies[user].keys.mid(4);
        // the other windows this user's earlier policies counted in stay as they were
        std::sort(compared.begin(), compared.end());
        // (only where no ban is configured: a shadow hit needs none of a ban's writes, so an ACL
        // user refused one of them is refused an enforced hit but not a shadow one)
        const bool restricted = step.operation == "shadow" && step.args[5] == "0" &&
                                step.args[6].isEmpty() && chance(12);
        if (restricted)
            m_redis.setAuth(tollgate::test::kRefusingPassword, aclUsers[pick(aclUsers.size())]);
        const tollgate::test::DifferentialOutcome outcome = m_scripts.run(m_redis, step, compared);
        if (restricted)
            m_redis.setAuth({}, {});
        // (a ban or unban runs on both sides, which may differ until the next shadow hit copies)
        if (!outcome.difference.isEmpty() &&
            (step.operation == "shadow" || outcome.difference.startsWith("wrapper failed")))
            QFAIL(qPrintable(QStringLiteral("case %1: %2\n%3")
                                 .arg(i)
                                 .arg(QString::fromUtf8(step.description()),
                                      QString::fromUtf8(outcome.difference))));
        if (step.operation == "shadow") {
            const QByteArray reply = outcome.reply;
            outcomes[reply.startsWith("E:") ? reply.mid(2, reply.indexOf(' ') - 2)
                                            : reply.split(' ').value(2)]++;
            const bool bans = step.args[5] != "0" || step.args[6] == "midnight";
            if (bans && reply.contains("\"deny\""))
                outcomes["would ban"]++;
        }
        if (chance(8))
            QThread::msleep(ulong(between(5, 60)));
    }
    QStringList counts;
    for (auto it = outcomes.cbegin(); it != outcomes.cend(); ++it)
        counts << QStringLiteral("%1: %2").arg(QString::fromUtf8(it.key())).arg(it.value());
    qInfo().noquote() << "outcomes:" << counts.join(QStringLiteral(", "));
    for (const char* kind : {"\"ok\"", "\"deny\"", "\"banned\"", "would ban", "TG_NOPERM"})
        QVERIFY2(outcomes.value(kind) > 0, kind);
}

QTEST_GUILESS_MAIN(ShadowDifferentialTest)
#include "tst_ShadowDifferential.moc"
