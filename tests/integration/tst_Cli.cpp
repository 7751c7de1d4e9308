// tollgatectl end to end: the real binary against a private redis-server, every documented
// command as written, its JSON shape and its exit code.
#include "tests/support/CliRunner.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using tollgate::test::RedisServer;

namespace {

using Run = tollgate::test::CliRun;

// ":12\r\n" -> 12
qint64 integerReply(const QByteArray& raw)
{
    return raw.startsWith(':') ? raw.mid(1).trimmed().toLongLong() : -99;
}

} // namespace

class tst_Cli : public QObject
{
    Q_OBJECT

private:
    Run ctl(const QStringList& args, const QString& url = {});
    void setPolicy(const QStringList& args);

    RedisServer m_redis;
    QString m_binary;

private Q_SLOTS:
    void initTestCase();
    void init();

    void policySet_data();
    void policySet();
    void policyListAndDelete();
    void policyConflict();
    void hitJson();
    void hitCostAndPeek();
    void overLimitIsDenied();
    void exitCodes_data();
    void exitCodes();
    void invalidPolicyWritesNothing();
    void unreachableServer();
    void banHitUnbanAudit();
    void userWideBan();
    void resetCounters();
    void subjects();
    void subjectsJsonEscapes();
    void byteOrderMarkIsPartOfTheId();
};

void tst_Cli::initTestCase()
{
    // Tests build into <build>/tests, the CLI into <build>/app; TOLLGATECTL overrides.
    m_binary = tollgate::test::tollgatectlPath();
    if (!QFileInfo(m_binary).isExecutable())
        QFAIL(qPrintable(QStringLiteral("tollgatectl not found at %1: build the 'tollgatectl' target "
                                        "first (or set TOLLGATECTL)")
                             .arg(m_binary)));
    TOLLGATE_REQUIRE(m_redis, start());
}

void tst_Cli::init()
{
    // A private server: wiping it between test functions is safe and keeps them independent.
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
}

Run tst_Cli::ctl(const QStringList& args, const QString& url)
{
    return tollgate::test::runCli(m_binary, url.isEmpty() ? m_redis.url() : url,
                                  QStringList{QStringLiteral("--actor"), QStringLiteral("tester")} +
                                      args);
}

void tst_Cli::setPolicy(const QStringList& args)
{
    const Run run = ctl(QStringList{QStringLiteral("policy"), QStringLiteral("set")} + args);
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
}

void tst_Cli::policySet_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("algorithm");
    QTest::addColumn<QString>("windows"); // window_ms:limit,...
    QTest::addColumn<qint64>("banMs");
    QTest::addColumn<QString>("banUntil");
    QTest::addColumn<qint64>("warn");

    QTest::newRow("comment") << "policy set comment --limit 10 --window 30s" << "fixed_window"
                             << "30000:10" << qint64(0) << "" << qint64(0);
    QTest::newRow("like") << "policy set like --limit 10 --window 10s --ban 1h" << "fixed_window"
                          << "10000:10" << qint64(3'600'000) << "" << qint64(0);
    QTest::newRow("upload") << "policy set upload --limit 100 --window 1d --ban-until midnight"
                            << "fixed_window" << "86400000:100" << qint64(0) << "midnight" << qint64(0);
    QTest::newRow("view") << "policy set view --limit 20 --window 1m --warn 10 --ban 1h"
                          << "fixed_window" << "60000:20" << qint64(3'600'000) << "" << qint64(10);
    QTest::newRow("api") << "policy set api --algorithm sliding_log --limit 5 --window 1s"
                         << "sliding_log" << "1000:5" << qint64(0) << "" << qint64(0);
    QTest::newRow("search") << "policy set search --windows 1m:10,1h:100,1d:1000" << "fixed_window"
                            << "60000:10,3600000:100,86400000:1000" << qint64(0) << "" << qint64(0);
    QTest::newRow("export") << "policy set export --algorithm token_bucket --limit 100 --window 1h"
                            << "token_bucket" << "3600000:100" << qint64(0) << "" << qint64(0);
}

void tst_Cli::policySet()
{
    QFETCH(QString, command);
    QFETCH(QString, algorithm);
    QFETCH(QString, windows);
    QFETCH(qint64, banMs);
    QFETCH(QString, banUntil);
    QFETCH(qint64, warn);

    const QStringList args = command.split(QLatin1Char(' '));
    const Run set = ctl(args);
    QVERIFY2(set.code == 0, qPrintable(set.describe()));
    QVERIFY(set.err.isEmpty());

    const Run get = ctl({QStringLiteral("policy"), QStringLiteral("get"), args.at(2), QStringLiteral("--json")});
    QVERIFY2(get.code == 0, qPrintable(get.describe()));
    const QJsonObject policy = get.object();
    QCOMPARE(policy.value(QStringLiteral("action")).toString(), args.at(2));
    QCOMPARE(policy.value(QStringLiteral("algorithm")).toString(), algorithm);
    QStringList actual;
    for (const QJsonValue& w : policy.value(QStringLiteral("windows")).toArray())
        actual << QStringLiteral("%1:%2")
                      .arg(w[QStringLiteral("window_ms")].toInteger())
                      .arg(w[QStringLiteral("limit")].toInteger());
    QCOMPARE(actual.join(QLatin1Char(',')), windows);
    QCOMPARE(policy.value(QStringLiteral("ban_ms")).toInteger(), banMs);
    QCOMPARE(policy.value(QStringLiteral("ban_until")).toString(), banUntil);
    QCOMPARE(policy.value(QStringLiteral("warn")).toInteger(), warn);
    QCOMPARE(policy.value(QStringLiteral("revision")).toInteger(), 1);
    QCOMPARE(policy.value(QStringLiteral("updated_by")).toString(), QStringLiteral("tester"));

    // Saving again reads the current revision first: no conflict, revision 2.
    const Run again = ctl(args + QStringList{QStringLiteral("--json")});
    QVERIFY2(again.code == 0, qPrintable(again.describe()));
    QCOMPARE(again.object().value(QStringLiteral("revision")).toInteger(), 2);
}

void tst_Cli::policyListAndDelete()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"),
               QStringLiteral("--window"), QStringLiteral("10s")});
    setPolicy({QStringLiteral("comment"), QStringLiteral("--limit"), QStringLiteral("10"),
               QStringLiteral("--window"), QStringLiteral("30s"), QStringLiteral("--message"),
               QStringLiteral("Slow down")});
    Run list = ctl({QStringLiteral("policy"), QStringLiteral("list"), QStringLiteral("--json")});
    QVERIFY2(list.code == 0, qPrintable(list.describe()));
    QCOMPARE(list.array().size(), 2);
    QCOMPARE(list.array().at(0)[QStringLiteral("action")].toString(), QStringLiteral("comment"));
    QCOMPARE(list.array().at(0)[QStringLiteral("message")].toString(), QStringLiteral("Slow down"));

    const Run removed = ctl({QStringLiteral("policy"), QStringLiteral("delete"), QStringLiteral("like")});
    QVERIFY2(removed.code == 0, qPrintable(removed.describe()));
    list = ctl({QStringLiteral("policy"), QStringLiteral("list"), QStringLiteral("--json")});
    QCOMPARE(list.array().size(), 1);
}

void tst_Cli::policyConflict()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"),
               QStringLiteral("--window"), QStringLiteral("10s")});
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("20"),
               QStringLiteral("--window"), QStringLiteral("10s")});
    // An operator who edited revision 1 must not overwrite revision 2.
    const Run stale = ctl({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
                           QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--window"),
                           QStringLiteral("10s"), QStringLiteral("--revision"), QStringLiteral("1")});
    QCOMPARE(stale.code, 3);
    QCOMPARE(stale.err.count('\n'), 1);
    QVERIFY2(stale.err.startsWith("tollgatectl: conflict:"), stale.err.constData());
    const Run get = ctl({QStringLiteral("policy"), QStringLiteral("get"), QStringLiteral("like"),
                         QStringLiteral("--json")});
    QCOMPARE(get.object()[QStringLiteral("windows")][0][QStringLiteral("limit")].toInteger(), 20);
}

void tst_Cli::hitJson()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"),
               QStringLiteral("--window"), QStringLiteral("10s"), QStringLiteral("--ban"), QStringLiteral("1h")});
    const Run hit = ctl({QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("42"), QStringLiteral("--json")});
    QVERIFY2(hit.code == 0, qPrintable(hit.describe()));
    const QJsonObject o = hit.object();
    const QStringList keys{QStringLiteral("allowed"),        QStringLiteral("count"),
                           QStringLiteral("decided_by"),     QStringLiteral("limit"),
                           QStringLiteral("remaining"),      QStringLiteral("reset_ms"),
                           QStringLiteral("retry_after_ms"), QStringLiteral("tier")};
    QCOMPARE(o.keys(), keys);
    QCOMPARE(o[QStringLiteral("allowed")].toBool(), true);
    QCOMPARE(o[QStringLiteral("tier")].toString(), QStringLiteral("ok"));
    QCOMPARE(o[QStringLiteral("count")].toInteger(), 1);
    QCOMPARE(o[QStringLiteral("limit")].toInteger(), 10);
    QCOMPARE(o[QStringLiteral("remaining")].toInteger(), 9);
    QVERIFY(o[QStringLiteral("reset_ms")].toInteger() > 9000);
    QCOMPARE(o[QStringLiteral("retry_after_ms")].toInteger(), 0);
    QCOMPARE(o[QStringLiteral("decided_by")].toString(), QStringLiteral("redis"));
    QCOMPARE(hit.out.count('\n'), 1); // one compact line
}

void tst_Cli::hitCostAndPeek()
{
    setPolicy({QStringLiteral("upload"), QStringLiteral("--limit"), QStringLiteral("100"),
               QStringLiteral("--window"), QStringLiteral("1d"), QStringLiteral("--ban-until"),
               QStringLiteral("midnight")});
    const Run hit = ctl({QStringLiteral("hit"), QStringLiteral("upload"), QStringLiteral("42"),
                         QStringLiteral("--cost"), QStringLiteral("5"), QStringLiteral("--json")});
    QVERIFY2(hit.code == 0, qPrintable(hit.describe()));
    QCOMPARE(hit.object()[QStringLiteral("count")].toInteger(), 5);
    QCOMPARE(hit.object()[QStringLiteral("remaining")].toInteger(), 95);

    // peek reports what one more hit would get, twice the same: it counts nothing.
    for (int i = 0; i < 2; ++i) {
        const Run peek = ctl({QStringLiteral("peek"), QStringLiteral("upload"), QStringLiteral("42"), QStringLiteral("--json")});
        QVERIFY2(peek.code == 0, qPrintable(peek.describe()));
        QCOMPARE(peek.object()[QStringLiteral("count")].toInteger(), 6);
    }
}

void tst_Cli::overLimitIsDenied()
{
    setPolicy({QStringLiteral("comment"), QStringLiteral("--limit"), QStringLiteral("2"),
               QStringLiteral("--window"), QStringLiteral("30s"), QStringLiteral("--message"),
               QStringLiteral("Please wait before commenting again")});
    const QStringList hit{QStringLiteral("hit"), QStringLiteral("comment"), QStringLiteral("7")};
    QCOMPARE(ctl(hit).code, 0);
    QCOMPARE(ctl(hit).code, 0);
    const Run text = ctl(hit);
    QCOMPARE(text.code, 1);
    QVERIFY2(text.out.contains("Please wait before commenting again"), text.out.constData());
    QVERIFY(text.err.isEmpty());
    const Run json = ctl(hit + QStringList{QStringLiteral("--json")});
    QCOMPARE(json.code, 1);
    QCOMPARE(json.object()[QStringLiteral("tier")].toString(), QStringLiteral("deny"));
    QCOMPARE(json.object()[QStringLiteral("allowed")].toBool(), false);
    QCOMPARE(json.object()[QStringLiteral("message")].toString(),
             QStringLiteral("Please wait before commenting again"));
    QVERIFY(json.object()[QStringLiteral("retry_after_ms")].toInteger() > 0);
}

void tst_Cli::exitCodes_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");

    QTest::newRow("no command") << QStringList{} << 2;
    QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")} << 2;
    QTest::newRow("bad flag") << QStringList{QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("42"), QStringLiteral("--bogus")} << 2;
    QTest::newRow("missing argument") << QStringList{QStringLiteral("hit"), QStringLiteral("like")} << 2;
    QTest::newRow("extra argument") << QStringList{QStringLiteral("peek"), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")} << 2;
    QTest::newRow("policy without sub-command") << QStringList{QStringLiteral("policy")} << 2;
    QTest::newRow("bad duration") << QStringList{QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("x"), QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--window"), QStringLiteral("30")} << 2;
    QTest::newRow("unknown algorithm") << QStringList{QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("x"), QStringLiteral("--algorithm"), QStringLiteral("magic"), QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--window"), QStringLiteral("1s")} << 2;
    QTest::newRow("ban without reason") << QStringList{QStringLiteral("ban"), QStringLiteral("42"), QStringLiteral("--for"), QStringLiteral("1h")} << 2;
    QTest::newRow("ban without end") << QStringList{QStringLiteral("ban"), QStringLiteral("42"), QStringLiteral("--reason"), QStringLiteral("x")} << 2;
    QTest::newRow("ban until garbage") << QStringList{QStringLiteral("ban"), QStringLiteral("42"), QStringLiteral("--until"), QStringLiteral("soon"), QStringLiteral("--reason"), QStringLiteral("x")} << 2;
    QTest::newRow("ban in the past") << QStringList{QStringLiteral("ban"), QStringLiteral("42"), QStringLiteral("--until"), QStringLiteral("2001-01-01T00:00:00Z"), QStringLiteral("--reason"), QStringLiteral("x")} << 2;
    QTest::newRow("unban without reason") << QStringList{QStringLiteral("unban"), QStringLiteral("42")} << 2;
    QTest::newRow("bad cost") << QStringList{QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("42"), QStringLiteral("--cost"), QStringLiteral("lots")} << 2;
    QTest::newRow("bad url") << QStringList{QStringLiteral("--url"), QStringLiteral("ftp://x"), QStringLiteral("scripts")} << 2;
    QTest::newRow("no such policy") << QStringList{QStringLiteral("hit"), QStringLiteral("nothing"), QStringLiteral("42")} << 3;
    QTest::newRow("help") << QStringList{QStringLiteral("--help")} << 0;
    QTest::newRow("command help") << QStringList{QStringLiteral("ban"), QStringLiteral("--help")} << 0;
}

void tst_Cli::exitCodes()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    const Run run = ctl(args);
    QVERIFY2(run.code == code, qPrintable(run.describe()));
    if (code >= 2 && !args.isEmpty()) {
        QCOMPARE(run.err.count('\n'), 1);
        QVERIFY2(run.err.startsWith("tollgatectl: "), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }
}

void tst_Cli::invalidPolicyWritesNothing()
{
    const Run run = ctl({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("comment"),
                         QStringLiteral("--limit"), QStringLiteral("-5"), QStringLiteral("--window"),
                         QStringLiteral("30s")});
    QVERIFY2(run.code == 2, qPrintable(run.describe()));
    QCOMPARE(run.err.count('\n'), 1);
    QCOMPARE(integerReply(m_redis.command({"DBSIZE"})), 0);
}

void tst_Cli::unreachableServer()
{
    RedisServer spare; // started and stopped: its port is free and nobody listens there
    TOLLGATE_REQUIRE(spare, start());
    const QString url = spare.url();
    spare.stop();
    const Run run = ctl({QStringLiteral("policy"), QStringLiteral("list")}, url);
    QVERIFY2(run.code == 3, qPrintable(run.describe()));
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY(run.err.startsWith("tollgatectl: "));
}

void tst_Cli::banHitUnbanAudit()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"),
               QStringLiteral("--window"), QStringLiteral("10s"), QStringLiteral("--ban"), QStringLiteral("1h")});
    const Run ban = ctl({QStringLiteral("ban"), QStringLiteral("42"), QStringLiteral("--action"),
                         QStringLiteral("like"), QStringLiteral("--for"), QStringLiteral("2h"),
                         QStringLiteral("--reason"), QStringLiteral("spam wave"), QStringLiteral("--json")});
    QVERIFY2(ban.code == 0, qPrintable(ban.describe()));
    QCOMPARE(ban.object()[QStringLiteral("reason")].toString(), QStringLiteral("spam wave"));
    QCOMPARE(ban.object()[QStringLiteral("actor")].toString(), QStringLiteral("tester"));
    QVERIFY(ban.object()[QStringLiteral("until_ms")].toInteger() > 0);

    const QStringList hit{QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("42"), QStringLiteral("--json")};
    Run banned = ctl(hit);
    QCOMPARE(banned.code, 1);
    QCOMPARE(banned.object()[QStringLiteral("tier")].toString(), QStringLiteral("banned"));
    QVERIFY(banned.object()[QStringLiteral("retry_after_ms")].toInteger() > 3'600'000);

    const Run unban = ctl({QStringLiteral("unban"), QStringLiteral("42"), QStringLiteral("--reason"),
                           QStringLiteral("appeal accepted"), QStringLiteral("--json")});
    QVERIFY2(unban.code == 0, qPrintable(unban.describe()));
    QCOMPARE(unban.object()[QStringLiteral("removed")].toInteger(), 1);
    QCOMPARE(ctl(hit).code, 0);

    const Run audit = ctl({QStringLiteral("audit"), QStringLiteral("--user"), QStringLiteral("42"), QStringLiteral("--json")});
    QVERIFY2(audit.code == 0, qPrintable(audit.describe()));
    const QJsonArray entries = audit.array();
    QVERIFY(entries.size() >= 2);
    QCOMPARE(entries[0][QStringLiteral("event")].toString(), QStringLiteral("unban")); // newest first
    QCOMPARE(entries[0][QStringLiteral("actor")].toString(), QStringLiteral("tester"));
    QCOMPARE(entries[0][QStringLiteral("reason")].toString(), QStringLiteral("appeal accepted"));
    QCOMPARE(entries[1][QStringLiteral("event")].toString(), QStringLiteral("ban"));
    QCOMPARE(entries[1][QStringLiteral("actor")].toString(), QStringLiteral("tester"));
    QCOMPARE(entries[1][QStringLiteral("reason")].toString(), QStringLiteral("spam wave"));

    const Run global = ctl({QStringLiteral("audit"), QStringLiteral("--count"), QStringLiteral("2"), QStringLiteral("--json")});
    QVERIFY2(global.code == 0, qPrintable(global.describe()));
    QCOMPARE(global.array().size(), 2);
    QCOMPARE(global.array()[0][QStringLiteral("event")].toString(), QStringLiteral("unban"));
}

void tst_Cli::userWideBan()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"), QStringLiteral("--window"), QStringLiteral("10s")});
    setPolicy({QStringLiteral("comment"), QStringLiteral("--limit"), QStringLiteral("10"), QStringLiteral("--window"), QStringLiteral("30s")});
    const Run ban = ctl({QStringLiteral("ban"), QStringLiteral("42"), QStringLiteral("--permanent"),
                         QStringLiteral("--reason"), QStringLiteral("troll")});
    QVERIFY2(ban.code == 0, qPrintable(ban.describe()));
    for (const QString& action : {QStringLiteral("like"), QStringLiteral("comment")}) {
        const Run hit = ctl({QStringLiteral("hit"), action, QStringLiteral("42"), QStringLiteral("--json")});
        QCOMPARE(hit.code, 1);
        QCOMPARE(hit.object()[QStringLiteral("tier")].toString(), QStringLiteral("banned"));
        QCOMPARE(hit.object()[QStringLiteral("retry_after_ms")].toInteger(), -1);
    }
    QCOMPARE(ctl({QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("43")}).code, 0);
    const Run unban = ctl({QStringLiteral("unban"), QStringLiteral("42"), QStringLiteral("--reason"), QStringLiteral("ok")});
    QVERIFY2(unban.code == 0, qPrintable(unban.describe()));
    QCOMPARE(ctl({QStringLiteral("hit"), QStringLiteral("comment"), QStringLiteral("42")}).code, 0);
}

void tst_Cli::resetCounters()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"), QStringLiteral("--window"), QStringLiteral("10s")});
    const QStringList hit{QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("42"), QStringLiteral("--json")};
    QCOMPARE(ctl(hit).code, 0);
    QCOMPARE(ctl(hit).object()[QStringLiteral("count")].toInteger(), 2);
    // Without --reason the audit entry still says where the reset came from.
    const Run reset = ctl({QStringLiteral("reset"), QStringLiteral("42"), QStringLiteral("--action"), QStringLiteral("like"), QStringLiteral("--json")});
    QVERIFY2(reset.code == 0, qPrintable(reset.describe()));
    QCOMPARE(reset.object()[QStringLiteral("deleted")].toInteger(), 1);
    QCOMPARE(ctl(hit).object()[QStringLiteral("count")].toInteger(), 1);
}

void tst_Cli::subjects()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"), QStringLiteral("--window"), QStringLiteral("10s")});
    setPolicy({QStringLiteral("comment"), QStringLiteral("--limit"), QStringLiteral("10"), QStringLiteral("--window"), QStringLiteral("30s")});
    QCOMPARE(ctl({QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("42")}).code, 0);
    QCOMPARE(ctl({QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("user with spaces: {x}*")}).code, 0);
    QCOMPARE(ctl({QStringLiteral("hit"), QStringLiteral("comment"), QStringLiteral("42")}).code, 0);
    QCOMPARE(ctl({QStringLiteral("ban"), QStringLiteral("42"), QStringLiteral("--action"), QStringLiteral("like"),
                  QStringLiteral("--for"), QStringLiteral("1h"), QStringLiteral("--reason"), QStringLiteral("spam")}).code, 0);

    const Run run = ctl({QStringLiteral("subjects"), QStringLiteral("--action"), QStringLiteral("like"), QStringLiteral("--json")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QJsonArray rows = run.lines();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0][QStringLiteral("user")].toString(), QStringLiteral("42"));
    QCOMPARE(rows[0][QStringLiteral("action")].toString(), QStringLiteral("like"));
    QCOMPARE(rows[0][QStringLiteral("tier")].toString(), QStringLiteral("banned"));
    QCOMPARE(rows[0][QStringLiteral("banned")].toBool(), true);
    QCOMPARE(rows[0][QStringLiteral("ban")][QStringLiteral("reason")].toString(), QStringLiteral("spam"));
    QCOMPARE(rows[0][QStringLiteral("limit")].toInteger(), 10);
    QCOMPARE(rows[1][QStringLiteral("user")].toString(), QStringLiteral("user with spaces: {x}*"));
    QCOMPARE(rows[1][QStringLiteral("count")].toInteger(), 1);
    QCOMPARE(rows[1][QStringLiteral("banned")].toBool(), false);

    const Run all = ctl({QStringLiteral("subjects"), QStringLiteral("--json")});
    QCOMPARE(all.lines().size(), 3);
}

// subjects --json writes its lines itself (a QJsonDocument per row was most of its CPU): every
// string must still come out as valid JSON that reads back as the same text.
void tst_Cli::subjectsJsonEscapes()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"), QStringLiteral("--window"), QStringLiteral("10s")});
    const QStringList users{QStringLiteral("quote\" back\\slash"), QStringLiteral("line\nfeed\ttab\x01bell\x1f"),
                            QStringLiteral("\u00fcn\u00ef \U0001F600 /slash")};
    for (const QString& user : users)
        QCOMPARE(ctl({QStringLiteral("hit"), QStringLiteral("like"), user}).code, 0);
    const QString reason = QStringLiteral("said \"hi\"\nthen \\ left");
    QCOMPARE(ctl({QStringLiteral("ban"), users[0], QStringLiteral("--action"), QStringLiteral("like"),
                  QStringLiteral("--for"), QStringLiteral("1h"), QStringLiteral("--reason"), reason}).code, 0);
    // A user id that is no UTF-8 (byte 0xFF), written as its key: shown as U+FFFD.
    QCOMPARE(m_redis.command({"SET", "tg:{%FF}:like:fw:10000", "3", "PX", "60000"}), QByteArray("+OK\r\n"));

    const Run run = ctl({QStringLiteral("subjects"), QStringLiteral("--json")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QMap<QString, QJsonObject> byUser;
    for (const QByteArray& line : run.out.split('\n')) {
        if (line.isEmpty())
            continue;
        QJsonParseError error{};
        const QJsonDocument row = QJsonDocument::fromJson(line, &error);
        QVERIFY2(error.error == QJsonParseError::NoError && row.isObject(), line.constData());
        byUser.insert(row[QStringLiteral("user")].toString(), row.object());
    }
    QCOMPARE(byUser.size(), 4);
    for (const QString& user : users) {
        QVERIFY2(byUser.contains(user), qPrintable(user));
        QCOMPARE(byUser[user][QStringLiteral("action")].toString(), QStringLiteral("like"));
    }
    QCOMPARE(byUser[users[1]][QStringLiteral("count")].toInteger(), 1);
    const QJsonObject ban = byUser[users[0]][QStringLiteral("ban")].toObject();
    QCOMPARE(ban[QStringLiteral("reason")].toString(), reason);
    QCOMPARE(ban[QStringLiteral("user")].toString(), users[0]);
    QCOMPARE(ban[QStringLiteral("permanent")].toBool(), false);
    QVERIFY(byUser[users[0]][QStringLiteral("user_ban")].isNull());
    QCOMPARE(byUser[QString(QChar(0xFFFD))][QStringLiteral("count")].toInteger(), 3);
}

void tst_Cli::byteOrderMarkIsPartOfTheId()
{
    // U+FEFF anywhere in an id is a character of it: "m<FEFF>m" and "mm" are two users, and an
    // id that is only U+FEFF is not empty. The JSON output shows each as it is.
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"), QStringLiteral("--window"), QStringLiteral("10s")});
    const QString bom(QChar(0xFEFF));
    const QStringList users{QStringLiteral("m") + bom + QStringLiteral("m"), QStringLiteral("mm"), bom,
                            bom + QStringLiteral("x")};
    for (const QString& user : users) {
        const Run hit = ctl({QStringLiteral("hit"), QStringLiteral("like"), user, QStringLiteral("--json")});
        QVERIFY2(hit.code == 0, qPrintable(hit.describe()));
        QCOMPARE(hit.object()[QStringLiteral("count")].toInteger(), 1);
    }
    const QByteArray bomBytes("\xef\xbb\xbf");
    QCOMPARE(m_redis.command({"GET", "tg:{m" + bomBytes + "m}:like:fw:10000"}), QByteArray("$1\r\n1\r\n"));
    QCOMPARE(m_redis.command({"GET", "tg:{mm}:like:fw:10000"}), QByteArray("$1\r\n1\r\n"));
    QCOMPARE(m_redis.command({"GET", "tg:{" + bomBytes + "}:like:fw:10000"}), QByteArray("$1\r\n1\r\n"));

    // Read as bytes: Qt's JSON parser itself drops a U+FEFF that starts a string.
    const Run run = ctl({QStringLiteral("subjects"), QStringLiteral("--json")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QByteArrayList shown;
    for (const QByteArray& line : run.out.split('\n')) {
        if (line.startsWith("{\"user\":\""))
            shown << line.mid(9, line.indexOf("\",\"action\"") - 9);
    }
    std::sort(shown.begin(), shown.end());
    QByteArrayList expected;
    for (const QString& user : users)
        expected << user.toUtf8();
    std::sort(expected.begin(), expected.end());
    QCOMPARE(shown, expected);
}

QTEST_GUILESS_MAIN(tst_Cli)
#include "tst_Cli.moc"
