// tollgatectl given a Sentinel deployment (tests/support/RedisSentinelGroup) through
// --url redis+sentinel://...: policy, hit, peek, ban, unban, subjects, repair and audit work
// through the sentinels' primary, follow it after a failover, and fail with the exit codes of
// docs/CLI.md: 2 for a bad URL (nothing sent), 3 for an unknown master name or sentinels that
// are all down, each with one clear line on stderr that never shows a password.

#include "tests/support/CliRunner.h"
#include "tests/support/RedisSentinelGroup.h"
#include "tests/support/TestEnv.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CliRun;
using tollgate::test::RedisSentinelGroup;
using tollgate::test::RedisServer;

class SentinelCliTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void operatorSession();
    void followsAFailover();
    void exitCodes_data();
    void exitCodes();

private:
    CliRun ctl(const QString& url, const QStringList& args);
    CliRun ctl(const QStringList& args) { return ctl(m_group.url(), args); }

    RedisSentinelGroup m_group;
};

void SentinelCliTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_group, start());
}

CliRun SentinelCliTest::ctl(const QString& url, const QStringList& args)
{
    return test::runCli(test::tollgatectlPath(), url, args);
}

void SentinelCliTest::operatorSession()
{
    const auto words = [](const char* line) {
        return QString::fromLatin1(line).split(QLatin1Char(' '));
    };
    CliRun run = ctl(words("policy set like --limit 2 --window 1m"));
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(ctl(words("hit like alice")).code, 0);
    QCOMPARE(ctl(words("hit like alice")).code, 0);
    run = ctl(words("hit like alice"));
    QVERIFY2(run.code == 1, qPrintable(run.describe())); // denied
    QCOMPARE(ctl(words("peek like bob")).code, 0);
    // --url on the command line wins over TOLLGATE_URL (here a server that is not there).
    run = ctl(QStringLiteral("redis://127.0.0.1:1"),
              {QStringLiteral("--url"), m_group.url(), QStringLiteral("peek"),
               QStringLiteral("like"), QStringLiteral("bob")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run =
        ctl(QStringList{QStringLiteral("ban"), QStringLiteral("mallory"), QStringLiteral("--for"),
                        QStringLiteral("1h"), QStringLiteral("--reason"), QStringLiteral("spam")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(ctl(words("hit like mallory")).code, 1);
    // Everything landed on the primary the sentinels name.
    RedisServer& primary = m_group.server(m_group.primaryIndex());
    QCOMPARE(primary.command({"EXISTS", "tg:{mallory}:ban"}), ":1\r\n");
    run = ctl(words("--json subjects --banned"));
    QVERIFY2(run.code == 0 && run.out.contains("mallory"), qPrintable(run.describe()));
    run = ctl(QStringList{QStringLiteral("unban"), QStringLiteral("mallory"),
                          QStringLiteral("--reason"), QStringLiteral("appeal")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(ctl(words("hit like mallory")).code, 0);
    run = ctl(words("repair"));
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl(words("audit --user mallory"));
    QVERIFY2(run.code == 0 && run.out.contains("appeal"), qPrintable(run.describe()));
    // What the sentinels say of the deployment.
    run = ctl(words("--json cluster"));
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QJsonObject sentinel = run.object().value(QStringLiteral("sentinel")).toObject();
    QCOMPARE(sentinel.value(QStringLiteral("primary")).toString(),
             QStringLiteral("127.0.0.1:%1").arg(primary.port()));
    QCOMPARE(sentinel.value(QStringLiteral("replicas")).toArray().size(), 1);
    const QJsonArray sentinels = sentinel.value(QStringLiteral("sentinels")).toArray();
    QCOMPARE(sentinels.size(), RedisSentinelGroup::kSentinels);
    for (const QJsonValue& one : sentinels)
        QVERIFY(one.toObject().value(QStringLiteral("answered")).toBool());
}

void SentinelCliTest::followsAFailover()
{
    const int old = m_group.primaryIndex();
    QVERIFY(m_group.failover());
    QVERIFY2(m_group.waitForPrimaryOtherThan(old), qPrintable(m_group.errorString()));
    // Each run asks the sentinels afresh: the new primary, with the policy replicated to it.
    const CliRun run =
        ctl({QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("carol")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    RedisServer& primary = m_group.server(m_group.primaryIndex());
    QCOMPARE(primary.command({"EXISTS", "tg:{carol}:like:fw:60000"}), ":1\r\n");
}

void SentinelCliTest::exitCodes_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const quint16 down1 = RedisServer::freePort();
    const quint16 down2 = RedisServer::freePort();
    QTest::newRow("no master name")
        << QStringLiteral("redis+sentinel://:hunter2@127.0.0.1:1") << 2
        << QStringLiteral("bad --url: Sentinel URL without a master name");
    QTest::newRow("unknown master")
        << QStringLiteral("unknown") << 3 << QStringLiteral("no master named 'nosuch' is watched");
    QTest::newRow("sentinels down")
        << QStringLiteral("redis+sentinel://:hunter2@127.0.0.1:%1,127.0.0.1:%2/tollgate"
                          "?sentinel_password=hunter3&connect_timeout=1000")
               .arg(down1)
               .arg(down2)
        << 3 << QStringLiteral("no sentinel named a primary for 'tollgate'");
}

void SentinelCliTest::exitCodes()
{
    QFETCH(QString, url);
    QFETCH(int, code);
    QFETCH(QString, message);
    if (url == QLatin1String("unknown"))
        url = m_group.url().replace(QStringLiteral("/tollgate"), QStringLiteral("/nosuch"));
    const CliRun run = ctl(url, {QStringLiteral("hit"), QStringLiteral("like"),
                                 QStringLiteral("dave"), QStringLiteral("--no-auth-warning")});
    QVERIFY2(run.code == code, qPrintable(run.describe()));
    QVERIFY2(run.out.isEmpty(), qPrintable(run.describe()));
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.startsWith(QStringLiteral("tollgatectl: ")) && err.count(QLatin1Char('\n')) == 1,
             qPrintable(run.describe()));
    QVERIFY2(err.contains(message), qPrintable(run.describe()));
    QVERIFY2(!err.contains(QStringLiteral("hunter")), qPrintable(run.describe()));
}

QTEST_GUILESS_MAIN(SentinelCliTest)
#include "tst_SentinelCli.moc"
