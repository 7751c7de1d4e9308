// `tollgatectl policy history | diff | rollback | restore` against a private redis-server: the
// shapes and exit codes of docs/CLI.md, and that a refused or bad command writes nothing.
#include "tests/support/CliRunner.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"

#include <QFileInfo>
#include <QtTest>

using tollgate::test::CliRun;
using tollgate::test::RedisServer;

class tst_PolicyHistoryCli : public QObject
{
    Q_OBJECT

private:
    CliRun ctl(const QStringList& args, const QString& url = {});
    // Saves like three times: limits 1, 2 and 3 per minute.
    void seed();
    // Every key with its DUMP.
    QMap<QByteArray, QByteArray> snapshot();

    RedisServer m_redis;
    QString m_binary;

private Q_SLOTS:
    void initTestCase();
    void init();
    void historyListsEveryRevision();
    void diffComparesFieldByField();
    void rollbackAndRestore();
    void errorsWriteNothing_data();
    void errorsWriteNothing();
    void aclRefusalIsExit3();
};

void tst_PolicyHistoryCli::initTestCase()
{
    m_binary = tollgate::test::tollgatectlPath();
    QVERIFY2(QFileInfo(m_binary).isExecutable(), qPrintable(m_binary));
    TOLLGATE_REQUIRE(m_redis, start());
}

void tst_PolicyHistoryCli::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
}

CliRun tst_PolicyHistoryCli::ctl(const QStringList& args, const QString& url)
{
    return tollgate::test::runCli(m_binary, url.isEmpty() ? m_redis.url() : url,
                                  QStringList{QStringLiteral("--actor"), QStringLiteral("tester")} +
                                      args);
}

void tst_PolicyHistoryCli::seed()
{
    for (const char* limit : {"1", "2", "3"}) {
        const CliRun run =
            ctl({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
                 QStringLiteral("--limit"), QString::fromLatin1(limit), QStringLiteral("--window"),
                 QStringLiteral("1m")});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
    }
}

QMap<QByteArray, QByteArray> tst_PolicyHistoryCli::snapshot()
{
    QMap<QByteArray, QByteArray> keys;
    for (const QByteArray& key :
         {QByteArray("tg:policy:like"), QByteArray("tg:policy:like:history"),
          QByteArray("tg:policies"), QByteArray("tg:audit")})
        keys[key] = m_redis.command({"DUMP", key});
    return keys;
}

void tst_PolicyHistoryCli::historyListsEveryRevision()
{
    seed();
    const CliRun text =
        ctl({QStringLiteral("policy"), QStringLiteral("history"), QStringLiteral("like")});
    QVERIFY2(text.code == 0, qPrintable(text.describe()));
    QVERIFY2(text.out.contains("3 (current)") && text.out.contains("1 per 1m") &&
                 text.out.contains("tester"),
             text.out.constData());

    const CliRun json = ctl({QStringLiteral("--json"), QStringLiteral("policy"),
                             QStringLiteral("history"), QStringLiteral("like")});
    QVERIFY2(json.code == 0, qPrintable(json.describe()));
    const QJsonObject object = json.object();
    QCOMPARE(object.value(QStringLiteral("deleted")).toBool(), false);
    const QJsonArray revisions = object.value(QStringLiteral("revisions")).toArray();
    QCOMPARE(revisions.size(), 3);
    QCOMPARE(revisions[0][QStringLiteral("revision")].toInt(), 3);
    QCOMPARE(revisions[0][QStringLiteral("current")].toBool(), true);
    QCOMPARE(revisions[2][QStringLiteral("fields")][QStringLiteral("windows")].toString(),
             QStringLiteral("60000:1"));
}

void tst_PolicyHistoryCli::diffComparesFieldByField()
{
    seed();
    const CliRun text = ctl({QStringLiteral("policy"), QStringLiteral("diff"),
                             QStringLiteral("like"), QStringLiteral("1"), QStringLiteral("3")});
    QVERIFY2(text.code == 0, qPrintable(text.describe()));
    QVERIFY2(text.out.contains("windows: '1m:1' -> '1m:3'"), text.out.constData());
    const CliRun json =
        ctl({QStringLiteral("--json"), QStringLiteral("policy"), QStringLiteral("diff"),
             QStringLiteral("like"), QStringLiteral("2"), QStringLiteral("2")});
    QVERIFY2(json.code == 0, qPrintable(json.describe()));
    QCOMPARE(json.object().value(QStringLiteral("fields")).toArray().size(), 0);
}

void tst_PolicyHistoryCli::rollbackAndRestore()
{
    seed();
    CliRun run =
        ctl({QStringLiteral("--json"), QStringLiteral("policy"), QStringLiteral("rollback"),
             QStringLiteral("like"), QStringLiteral("--to"), QStringLiteral("1"),
             QStringLiteral("--reason"), QStringLiteral("bad deploy")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(QStringLiteral("revision")).toInt(), 4);
    QCOMPARE(m_redis.command({"HGET", "tg:policy:like", "windows"}),
             QByteArray("$7\r\n60000:1\r\n"));

    run = ctl({QStringLiteral("policy"), QStringLiteral("delete"), QStringLiteral("like")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({QStringLiteral("policy"), QStringLiteral("history"), QStringLiteral("like")});
    QVERIFY2(run.code == 0 && run.out.contains("is deleted"), qPrintable(run.describe()));
    run = ctl({QStringLiteral("policy"), QStringLiteral("restore"), QStringLiteral("like"),
               QStringLiteral("--reason"), QStringLiteral("deleted by mistake")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains("revision 4 is back as revision 5"), run.out.constData());
    run = ctl({QStringLiteral("audit"), QStringLiteral("--count"), QStringLiteral("5")});
    QVERIFY2(run.out.contains("restore") && run.out.contains("rollback") &&
                 run.out.contains("deleted by mistake"),
             run.out.constData());
}

void tst_PolicyHistoryCli::errorsWriteNothing_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QByteArray>("message");
    const QString reason = QStringLiteral("--reason");
    QTest::newRow("no reason") << QStringList{QStringLiteral("rollback"), QStringLiteral("like"),
                                              QStringLiteral("--to"), QStringLiteral("1")}
                               << 2 << QByteArray("needs --reason");
    QTest::newRow("no --to") << QStringList{QStringLiteral("rollback"), QStringLiteral("like"),
                                            reason, QStringLiteral("r")}
                             << 2 << QByteArray("--to");
    QTest::newRow("bad revision") << QStringList{QStringLiteral("diff"), QStringLiteral("like"),
                                                 QStringLiteral("one"), QStringLiteral("2")}
                                  << 2 << QByteArray("rev-a");
    QTest::newRow("unknown revision") << QStringList{QStringLiteral("rollback"),
                                                     QStringLiteral("like"),
                                                     QStringLiteral("--to"),
                                                     QStringLiteral("9"),
                                                     reason,
                                                     QStringLiteral("r")}
                                      << 3 << QByteArray("has no revision 9");
    QTest::newRow("unknown action")
        << QStringList{QStringLiteral("history"), QStringLiteral("ghost")} << 3
        << QByteArray("no policy and no history");
    QTest::newRow("restore of a stored policy")
        << QStringList{QStringLiteral("restore"), QStringLiteral("like"), reason,
                       QStringLiteral("r")}
        << 3 << QByteArray("exists (revision 3)");
    QTest::newRow("rollback to the current revision") << QStringList{QStringLiteral("rollback"),
                                                                     QStringLiteral("like"),
                                                                     QStringLiteral("--to"),
                                                                     QStringLiteral("3"),
                                                                     reason,
                                                                     QStringLiteral("r")}
                                                      << 2 << QByteArray("already");
}

void tst_PolicyHistoryCli::errorsWriteNothing()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QByteArray, message);
    seed();
    const auto before = snapshot();
    const CliRun run = ctl(QStringList{QStringLiteral("policy")} + args);
    QVERIFY2(run.code == code && run.err.contains(message) && run.out.isEmpty(),
             qPrintable(run.describe()));
    QCOMPARE(snapshot(), before);
}

void tst_PolicyHistoryCli::aclRefusalIsExit3()
{
    seed();
    // May run the scripts on any key and write the policy, its index and the audit stream, but
    // not the history: the scripts find that out before writing anything.
    QCOMPARE(m_redis.command({"ACL", "SETUSER", "nohistory", "reset", "on", ">pw", "+@all",
                              "-evalsha", "%R~*", "%W~tg:policy:like", "%W~tg:policies",
                              "%W~tg:audit", "(+evalsha ~*)"}),
             QByteArray("+OK\r\n"));
    const QString url = QStringLiteral("redis://nohistory:pw@127.0.0.1:%1").arg(m_redis.port());
    const auto before = snapshot();
    for (const QStringList& args :
         {QStringList{QStringLiteral("rollback"), QStringLiteral("like"), QStringLiteral("--to"),
                      QStringLiteral("1"), QStringLiteral("--reason"), QStringLiteral("r")},
          QStringList{QStringLiteral("set"), QStringLiteral("like"), QStringLiteral("--limit"),
                      QStringLiteral("9"), QStringLiteral("--window"), QStringLiteral("1m")},
          QStringList{QStringLiteral("delete"), QStringLiteral("like")}}) {
        const CliRun run = ctl(QStringList{QStringLiteral("policy")} + args, url);
        QVERIFY2(run.code == 3 && run.err.contains("nothing was written"),
                 qPrintable(run.describe()));
        QCOMPARE(snapshot(), before);
    }
}

QTEST_GUILESS_MAIN(tst_PolicyHistoryCli)
#include "tst_PolicyHistoryCli.moc"
