// tollgatectl's tools end to end, the real binary against a private redis-server: repair (the
// keys an interrupted INCR + EXPIRE left without a TTL, and keys of the wrong type), scripts,
// bench and simulate. The everyday commands are in tst_Cli.
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

class tst_CliTools : public QObject
{
    Q_OBJECT

private:
    Run ctl(const QStringList& args);
    void setPolicy(const QStringList& args);

    RedisServer m_redis;
    QString m_binary;

private Q_SLOTS:
    void initTestCase();
    void init();

    void repairDryRunThenFix();
    void repairNamesKeysOfTheWrongType();
    void scripts();
    void bench();
    void simulate();
};

void tst_CliTools::initTestCase()
{
    m_binary = tollgate::test::tollgatectlPath();
    if (!QFileInfo(m_binary).isExecutable())
        QFAIL(qPrintable(QStringLiteral("tollgatectl not found at %1: build the 'tollgatectl' target "
                                        "first (or set TOLLGATECTL)")
                             .arg(m_binary)));
    TOLLGATE_REQUIRE(m_redis, start());
}

void tst_CliTools::init()
{
    // A private server: wiping it between test functions keeps them independent.
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
}

Run tst_CliTools::ctl(const QStringList& args)
{
    return tollgate::test::runCli(m_binary, m_redis.url(),
                                  QStringList{QStringLiteral("--actor"), QStringLiteral("tester")} +
                                      args);
}

void tst_CliTools::setPolicy(const QStringList& args)
{
    const Run run = ctl(QStringList{QStringLiteral("policy"), QStringLiteral("set")} + args);
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
}

void tst_CliTools::repairDryRunThenFix()
{
    // What an interrupted INCR + EXPIRE leaves behind: a counter that never expires.
    const QByteArray broken = "tg:{42}:like:fw:10000";
    QCOMPARE(m_redis.command({"SET", broken, "7"}), QByteArray("+OK\r\n"));
    QCOMPARE(m_redis.command({"SET", "tg:{43}:like:fw:10000", "1", "PX", "60000"}), QByteArray("+OK\r\n"));

    const Run dry = ctl({QStringLiteral("repair"), QStringLiteral("--json")});
    QVERIFY2(dry.code == 0, qPrintable(dry.describe()));
    QJsonObject report = dry.object();
    QCOMPARE(report[QStringLiteral("mode")].toString(), QStringLiteral("dry"));
    QCOMPARE(report[QStringLiteral("found")].toInteger(), 1);
    QCOMPARE(report[QStringLiteral("fixed")].toInteger(), 0);
    QCOMPARE(report[QStringLiteral("items")].toArray().size(), 1);
    QJsonValue item = report[QStringLiteral("items")][0];
    QCOMPARE(item[QStringLiteral("key")].toString(), QString::fromLatin1(broken));
    QCOMPARE(item[QStringLiteral("status")].toString(), QStringLiteral("would_fix"));
    QCOMPARE(item[QStringLiteral("ttl_ms")].toInteger(), 10000);
    QCOMPARE(integerReply(m_redis.command({"PTTL", broken})), -1); // a dry run changes nothing

    const Run fix = ctl({QStringLiteral("repair"), QStringLiteral("--fix"), QStringLiteral("--json")});
    QVERIFY2(fix.code == 0, qPrintable(fix.describe()));
    report = fix.object();
    QCOMPARE(report[QStringLiteral("fixed")].toInteger(), 1);
    QCOMPARE(report[QStringLiteral("items")][0][QStringLiteral("status")].toString(), QStringLiteral("fixed"));
    const qint64 ttl = integerReply(m_redis.command({"PTTL", broken}));
    QVERIFY2(ttl > 0 && ttl <= 10000, qPrintable(QString::number(ttl)));

    const Run after = ctl({QStringLiteral("repair"), QStringLiteral("--json")});
    QCOMPARE(after.object()[QStringLiteral("found")].toInteger(), 0);
}

void tst_CliTools::repairNamesKeysOfTheWrongType()
{
    // Another tool's string where a ban belongs: no TTL helps, the key is named instead of
    // only counted as skipped.
    QCOMPARE(m_redis.command({"SET", "tg:{44}:ban", "x"}), QByteArray("+OK\r\n"));
    const Run json = ctl({QStringLiteral("repair"), QStringLiteral("--json")});
    QVERIFY2(json.code == 0, qPrintable(json.describe()));
    const QJsonObject report = json.object();
    QCOMPARE(report[QStringLiteral("wrong_type")].toInteger(), 1);
    QCOMPARE(report[QStringLiteral("skipped")].toInteger(), 0);
    QCOMPARE(report[QStringLiteral("found")].toInteger(), 0);
    const QJsonValue item = report[QStringLiteral("items")][0];
    QCOMPARE(item[QStringLiteral("key")].toString(), QStringLiteral("tg:{44}:ban"));
    QCOMPARE(item[QStringLiteral("kind")].toString(), QStringLiteral("user_ban"));
    QCOMPARE(item[QStringLiteral("status")].toString(), QStringLiteral("wrong_type"));
    QCOMPARE(item[QStringLiteral("type")].toString(), QStringLiteral("string"));
    QCOMPARE(item[QStringLiteral("expected")].toString(), QStringLiteral("hash"));

    const Run text = ctl({QStringLiteral("repair"), QStringLiteral("--fix")});
    QVERIFY2(text.code == 0, qPrintable(text.describe()));
    QVERIFY2(text.out.contains("wrong_type  tg:{44}:ban  is a string, must be a hash\n"),
             text.out.constData());
    QVERIFY2(text.out.contains(", 1 of the wrong type ("), text.out.constData());
    QCOMPARE(m_redis.command({"GET", "tg:{44}:ban"}),
             QByteArray("$1\r\nx\r\n")); // not ours to delete
}

void tst_CliTools::scripts()
{
    QCOMPARE(m_redis.command({"SCRIPT", "FLUSH"}), QByteArray("+OK\r\n"));
    const Run run = ctl({QStringLiteral("scripts"), QStringLiteral("--json")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QJsonArray scripts = run.array();
    QVERIFY(scripts.size() >= 7);
    QStringList names;
    for (const QJsonValue& script : scripts) {
        names << script[QStringLiteral("name")].toString();
        QCOMPARE(script[QStringLiteral("sha1")].toString().size(), 40);
        QCOMPARE(script[QStringLiteral("loaded")].toBool(), false); // flushed: none cached
    }
    for (const char* name : {"hit", "ban", "unban", "reset", "repair", "policy_set", "policy_delete"})
        QVERIFY2(names.contains(QLatin1String(name)), name);

    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"), QStringLiteral("--window"), QStringLiteral("10s")});
    QCOMPARE(ctl({QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("1")}).code, 0);
    for (const QJsonValue& script : ctl({QStringLiteral("scripts"), QStringLiteral("--json")}).array()) {
        if (script[QStringLiteral("name")].toString() == QLatin1String("hit"))
            QCOMPARE(script[QStringLiteral("loaded")].toBool(), true);
    }
}

void tst_CliTools::bench()
{
    const Run run = ctl({QStringLiteral("bench"), QStringLiteral("hit"), QStringLiteral("--connections"),
                         QStringLiteral("2"), QStringLiteral("--pipeline"), QStringLiteral("4"),
                         QStringLiteral("--seconds"), QStringLiteral("1"), QStringLiteral("--json")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QJsonObject o = run.object();
    QVERIFY(o[QStringLiteral("ops")].toInteger() > 0);
    QCOMPARE(o[QStringLiteral("errors")].toInteger(), 0);
    QVERIFY(o[QStringLiteral("ops_per_sec")].toDouble() > 0);
    QVERIFY(o[QStringLiteral("p50_ms")].toDouble() > 0);
    QVERIFY(o[QStringLiteral("p99_ms")].toDouble() >= o[QStringLiteral("p50_ms")].toDouble());
    QVERIFY(o[QStringLiteral("max_ms")].toDouble() >= o[QStringLiteral("p99_ms")].toDouble());
}

void tst_CliTools::simulate()
{
    const Run run = ctl({QStringLiteral("simulate"), QStringLiteral("--seconds"), QStringLiteral("3"),
                         QStringLiteral("--json")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QVERIFY(run.object()[QStringLiteral("hits_sent")].toInteger() > 0);
    // The example policies are in place and the abusive users got banned.
    const Run policies = ctl({QStringLiteral("policy"), QStringLiteral("list"), QStringLiteral("--json")});
    QVERIFY(policies.array().size() >= 7);
    const Run subjects = ctl({QStringLiteral("subjects"), QStringLiteral("--json")});
    bool someoneBanned = false;
    for (const QJsonValue& subject : subjects.lines())
        someoneBanned |= subject[QStringLiteral("banned")].toBool();
    QVERIFY2(someoneBanned, subjects.out.constData());
    QCOMPARE(ctl({QStringLiteral("simulate"), QStringLiteral("--rate"), QStringLiteral("0")}).code, 2);
}

QTEST_GUILESS_MAIN(tst_CliTools)
#include "tst_CliTools.moc"
