// tollgatectl given any node of a real three-primary Redis Cluster, as an operator would use it:
// a policy, hits of users living on every primary until the automatic ban, the subjects
// listed exactly once each, unban, repair of counters that lost their TTL on every primary,
// the merged audit, the scripts loaded everywhere. And the problem Tollgate exists for, on the
// cluster: the naive INCR + PEXPIRE client leaves counters without a TTL, hit.lua never does.

#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Client.h"
#include "tollgate/Limiter.h"

#include <QtTest>
#include <map>
#include <set>

using namespace tollgate;
using tollgate::test::CliRun;
using tollgate::test::RedisCluster;

class ClusterCliTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void operatorSessionOnCluster();
    void repairFindsKeysOnEveryPrimary();
    void ttlRaceOnCluster();
    void policyHistoryOnCluster();

private:
    CliRun ctl(std::initializer_list<QByteArray> args);
    // Keys without a TTL matching `pattern`, counted on every primary.
    qint64 keysWithoutTtl(const QByteArray& pattern);

    RedisCluster m_cluster;
    QList<QByteArray> m_users; // two on each primary
};

void ClusterCliTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 0));
    std::map<int, int> taken;
    for (int i = 0; m_users.size() < 6 && i < 10'000; ++i) {
        const QByteArray user = "member " + QByteArray::number(i); // a space: escaped in keys
        const int node = m_cluster.nodeOfKey(KeySchema("tg").userBanKey(user));
        if (node >= 0 && taken[node]++ < 2)
            m_users << user;
    }
    QCOMPARE(m_users.size(), 6);
}

CliRun ClusterCliTest::ctl(std::initializer_list<QByteArray> args)
{
    QStringList list;
    for (const QByteArray& arg : args)
        list << QString::fromUtf8(arg);
    return test::runCli(test::tollgatectlPath(), m_cluster.seedUrl(), list);
}

qint64 ClusterCliTest::keysWithoutTtl(const QByteArray& pattern)
{
    qint64 found = 0;
    for (int node = 0; node < m_cluster.size(); ++node) {
        QByteArray cursor = "0";
        do {
            const QByteArray reply =
                m_cluster.node(node).command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
            // *2 $n cursor *k $len key ...: walk it line by line
            const QList<QByteArray> lines = reply.split('\n');
            cursor = lines.value(2).trimmed();
            for (int i = 4; i + 1 < lines.size(); i += 2) {
                const QByteArray key = lines[i + 1].trimmed();
                if (m_cluster.node(node).command({"PTTL", key}) == ":-1\r\n")
                    ++found;
            }
        } while (cursor != "0" && !cursor.isEmpty());
    }
    return found;
}

void ClusterCliTest::operatorSessionOnCluster()
{
    CliRun run = ctl({"policy", "set", "like", "--limit", "3", "--window", "1m", "--ban", "1h"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({"--json", "policy", "list"});
    QVERIFY2(run.code == 0 && run.out.contains("\"like\""), qPrintable(run.describe()));

    // Every user hits four times: three allowed, the fourth denied and banned.
    for (const QByteArray& user : std::as_const(m_users)) {
        for (int i = 0; i < 3; ++i) {
            run = ctl({"hit", "like", user});
            QVERIFY2(run.code == 0, qPrintable(run.describe()));
        }
        run = ctl({"hit", "like", user});
        QVERIFY2(run.code == 1, qPrintable(run.describe()));
    }

    // Each subject exactly once, wherever it lives, and banned.
    run = ctl({"--json", "subjects", "--action", "like"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    std::multiset<QString> listed;
    for (const QJsonValue& line : run.lines()) {
        const QJsonObject subject = line.toObject();
        listed.insert(subject.value(QStringLiteral("user")).toString());
        QVERIFY2(!subject.value(QStringLiteral("ban")).isNull(), qPrintable(run.describe()));
    }
    QCOMPARE(listed.size(), size_t(m_users.size()));
    for (const QByteArray& user : std::as_const(m_users))
        QCOMPARE(listed.count(QString::fromUtf8(user)), size_t(1));

    run = ctl({"unban", m_users.first(), "--action", "like", "--reason",
               "appeal accepted"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    // No longer banned; still at its limit until the window ends (exit 1: denied).
    run = ctl({"peek", "like", m_users.first()});
    QVERIFY2(run.code == 1 && run.out.contains("tier deny"), qPrintable(run.describe()));

    // The merged audit holds the automatic bans of every node and the unban.
    run = ctl({"--json", "audit", "--count", "100"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    std::set<QString> bannedUsers;
    bool unban = false;
    for (const QJsonValue& entry : run.array()) {
        const QJsonObject e = entry.toObject();
        if (e.value(QStringLiteral("event")).toString() == QLatin1String("auto_ban"))
            bannedUsers.insert(e.value(QStringLiteral("user")).toString());
        unban = unban || e.value(QStringLiteral("event")).toString() == QLatin1String("unban");
    }
    QVERIFY2(unban, qPrintable(run.describe()));
    QCOMPARE(bannedUsers.size(), size_t(m_users.size()));

    // Loaded means loaded on every primary: hit.lua, run on all of them, is.
    run = ctl({"--json", "scripts"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    bool hitLoaded = false;
    for (const QJsonValue& script : run.array())
        hitLoaded = hitLoaded || (script.toObject().value(QStringLiteral("name")).toString() ==
                                      QLatin1String("hit") &&
                                  script.toObject().value(QStringLiteral("loaded")).toBool());
    QVERIFY2(hitLoaded, qPrintable(run.describe()));
}

void ClusterCliTest::repairFindsKeysOnEveryPrimary()
{
    // Counters that lost their TTL (the naive client's doing), one user on each primary.
    std::set<int> nodes;
    for (const QByteArray& user : std::as_const(m_users)) {
        const QByteArray key =
            KeySchema("tg").stateKey(user, "like", Algorithm::FixedWindow, 60'000);
        const int node = m_cluster.nodeOfKey(key);
        m_cluster.node(node).command({"SET", key, "7"});
        nodes.insert(node);
    }
    QCOMPARE(nodes.size(), size_t(3));
    QCOMPARE(keysWithoutTtl("tg:{*}:like:fw:*"), qint64(m_users.size()));
    CliRun run = ctl({"repair"});
    QVERIFY2(run.code == 0 && run.out.contains("6"), qPrintable(run.describe()));
    QCOMPARE(keysWithoutTtl("tg:{*}:like:fw:*"), qint64(m_users.size())); // a dry run
    run = ctl({"repair", "--fix"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(keysWithoutTtl("tg:{*}:like:fw:*"), qint64(0));
}

void ClusterCliTest::ttlRaceOnCluster()
{
    auto client = std::make_unique<Client>(*ConnectionOptions::fromUrl(m_cluster.seedUrl()));
    client->open();
    QTRY_VERIFY(client->isModeKnown() && client->isCluster());

    // The naive client: INCR, then PEXPIRE when the counter is new, on 12 keys over every
    // node with a 5 ms window, 64 operations in flight: keys expire between the two.
    std::atomic<bool> stop{false};
    std::atomic<int> inFlight{0};
    std::atomic<quint64> sequence{0};
    std::function<void()> naive = [&] {
        if (stop.load())
            return;
        const QByteArray key = "naive:{" + QByteArray::number(sequence++ % 12) + '}';
        ++inFlight;
        client->execute({"INCR", key}, nullptr, [&, key](Result<Reply> reply) {
            if (reply && reply->integer == 1)
                client->execute({"PEXPIRE", key, "5"}, nullptr, [](const Result<Reply>&) {});
            --inFlight;
            naive();
        });
    };
    for (int i = 0; i < 64; ++i)
        naive();
    // Stopped before any check can return: the callbacks use this function's locals.
    const bool orphaned = QTest::qWaitFor([&] { return keysWithoutTtl("naive:*") > 0; }, 20'000);
    stop = true;
    QTRY_COMPARE_WITH_TIMEOUT(inFlight.load(), 0, 10'000);
    QVERIFY2(orphaned, "the naive client never left a key without TTL: the test could not fail");

    // The same load through hit.lua: never a key without TTL.
    const Policy policy = test::makePolicy("race", 3, 5);
    const Limiter limiter(client.get(), KeySchema("tg"));
    std::atomic<qint64> hits{0}, errors{0};
    stop = false;
    std::function<void()> scripted = [&] {
        if (stop.load())
            return;
        const QByteArray user = QByteArray::number(sequence++ % 12);
        ++inFlight;
        limiter.hit(policy, user, 1, nullptr, [&](Result<HitResult> hit) {
            ++hits;
            errors += hit ? 0 : 1;
            --inFlight;
            scripted();
        });
    };
    for (int i = 0; i < 64; ++i)
        scripted();
    qint64 orphans = 0;
    const bool enough = QTest::qWaitFor(
        [&] {
            orphans += keysWithoutTtl("tg:{*}:race:*");
            return hits.load() > 20'000 || orphans > 0;
        },
        60'000);
    stop = true;
    QTRY_COMPARE_WITH_TIMEOUT(inFlight.load(), 0, 10'000);
    QCOMPARE(orphans, qint64(0));
    QVERIFY(enough);
    QCOMPARE(errors.load(), qint64(0));
    QCOMPARE(keysWithoutTtl("tg:{*}:race:*"), qint64(0));
    qInfo("%lld scripted hits, none left a key without TTL", static_cast<long long>(hits.load()));
}

void ClusterCliTest::policyHistoryOnCluster()
{
    // Save twice, delete, restore, roll back: each step one script on the {:} slot.
    CliRun run = ctl({"policy", "set", "upload", "--limit", "100", "--window", "1d"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({"policy", "set", "upload", "--limit", "120", "--window", "1d"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({"policy", "delete", "upload"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({"policy", "restore", "upload", "--reason", "deleted by mistake"});
    QVERIFY2(run.code == 0 && run.out.contains("revision 2 is back as revision 3"),
             qPrintable(run.describe()));
    run = ctl({"policy", "rollback", "upload", "--to", "1", "--reason", "too generous"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({"policy", "diff", "upload", "3", "4"});
    QVERIFY2(run.code == 0 && run.out.contains("windows: '1d:120' -> '1d:100'"),
             qPrintable(run.describe()));
    run = ctl({"--json", "policy", "history", "upload"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(QStringLiteral("revisions")).toArray().size(), 4);
    const QByteArray history = KeySchema("tg").policyHistoryKey("upload", true);
    QCOMPARE(m_cluster.node(m_cluster.nodeOfKey(history)).command({"XLEN", history}),
             QByteArray(":3\r\n"));
}

QTEST_GUILESS_MAIN(ClusterCliTest)
#include "tst_ClusterCli.moc"
