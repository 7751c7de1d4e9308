// Policies as files: `tollgatectl policy export` and `policy apply` against private
// redis-servers. Every field round-trips through YAML and JSON, including odd action ids and
// messages; plans change nothing and say whether anything would; bad files write nothing.
#include "tests/support/CliRunner.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using tollgate::test::CliRun;
using tollgate::test::RedisServer;

class tst_PolicyFiles : public QObject
{
    Q_OBJECT

private:
    CliRun ctl(const RedisServer& server, const QStringList& args, const QByteArray& input = {});
    void setPolicy(const QStringList& args);
    QString writeFile(const QString& name, const QByteArray& text);
    // Number of policies on `server`: the index set names them, plus its marker "*".
    qint64 policyCount(RedisServer& server);

    RedisServer m_source;
    RedisServer m_target;
    QString m_binary;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase();
    void init();

    void roundTripsEveryField_data();
    void roundTripsEveryField();
    void planSaysWhatWouldChange();
    void pruneDeletesWhatTheFileDoesNotName();
    void applyNeedsAReason();
    void badFilesWriteNothing_data();
    void badFilesWriteNothing();
    void invalidStoredPolicyIsNamed();
    void readsStandardInput();
    void actionThatIsNotUtf8IsNotExported();
};

void tst_PolicyFiles::initTestCase()
{
    m_binary = tollgate::test::tollgatectlPath();
    QVERIFY2(QFileInfo(m_binary).isExecutable(), qPrintable(m_binary));
    QVERIFY(m_dir.isValid());
    TOLLGATE_REQUIRE(m_source, start());
    TOLLGATE_REQUIRE(m_target, start());
}

void tst_PolicyFiles::init()
{
    QCOMPARE(m_source.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
    QCOMPARE(m_target.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
}

CliRun tst_PolicyFiles::ctl(const RedisServer& server, const QStringList& args,
                            const QByteArray& input)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), server.url());
    return tollgate::test::runCli(
        m_binary, env, QStringList{QStringLiteral("--actor"), QStringLiteral("tester")} + args,
        input);
}

void tst_PolicyFiles::setPolicy(const QStringList& args)
{
    const CliRun run = ctl(m_source, QStringList{QStringLiteral("policy"), QStringLiteral("set")} + args);
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
}

QString tst_PolicyFiles::writeFile(const QString& name, const QByteArray& text)
{
    QFile file(m_dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        return {};
    return file.fileName();
}

qint64 tst_PolicyFiles::policyCount(RedisServer& server)
{
    const QByteArray reply = server.command({"SCARD", "tg:policies"});
    const qint64 members = reply.startsWith(':') ? reply.mid(1).trimmed().toLongLong() : -1;
    return members > 0 ? members - 1 : members;
}

void tst_PolicyFiles::roundTripsEveryField_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("yaml") << QStringLiteral("yaml");
    QTest::newRow("json") << QStringLiteral("json");
}

// Every field, every algorithm, calendar windows, zones, failure modes, odd ids and messages:
// exported from one server, applied to an empty one, exported again, byte for byte the same.
void tst_PolicyFiles::roundTripsEveryField()
{
    QFETCH(QString, format);
    const QStringList json = format == QLatin1String("json") ? QStringList{QStringLiteral("--json")}
                                                             : QStringList{};
    setPolicy({QStringLiteral("comment"), QStringLiteral("--limit"), QStringLiteral("10"),
               QStringLiteral("--window"), QStringLiteral("30s"), QStringLiteral("--message"),
               QStringLiteral("Bitte langsamer: \"quotes\", 'apostrophes', # and: colons")});
    setPolicy({QStringLiteral("upload"), QStringLiteral("--limit"), QStringLiteral("100"),
               QStringLiteral("--window"), QStringLiteral("1d"), QStringLiteral("--calendar"),
               QStringLiteral("--ban-until"), QStringLiteral("midnight"), QStringLiteral("--tz"),
               QStringLiteral("Europe/Berlin")});
    setPolicy({QStringLiteral("search"), QStringLiteral("--algorithm"),
               QStringLiteral("sliding_window"), QStringLiteral("--windows"),
               QStringLiteral("1m:10,1h:100"), QStringLiteral("--count-denied"),
               QStringLiteral("--on-error"), QStringLiteral("insurance"), QStringLiteral("--warn"),
               QStringLiteral("5"), QStringLiteral("--cost"), QStringLiteral("2"),
               QStringLiteral("--tz"), QStringLiteral("America/New_York")});
    setPolicy({QStringLiteral("api"), QStringLiteral("--algorithm"), QStringLiteral("sliding_log"),
               QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--window"),
               QStringLiteral("1500ms"), QStringLiteral("--ban"), QStringLiteral("1h30m"),
               QStringLiteral("--on-error"), QStringLiteral("deny"), QStringLiteral("--shadow")});
    setPolicy({QStringLiteral("export"), QStringLiteral("--algorithm"),
               QStringLiteral("token_bucket"), QStringLiteral("--limit"), QStringLiteral("100"),
               QStringLiteral("--window"), QStringLiteral("1h"), QStringLiteral("--on-error"),
               QStringLiteral("allow")});
    // Action ids with unicode, spaces, ':', '{}' and '*' (escaped in keys, plain in the file).
    setPolicy({QString::fromUtf8("größe: {a*b} x \xF0\x9F\x9A\x80"), QStringLiteral("--limit"), QStringLiteral("3"),
               QStringLiteral("--window"), QStringLiteral("1w"), QStringLiteral("--message"),
               QStringLiteral("line one\nline two")});

    const CliRun exported = ctl(m_source, json + QStringList{QStringLiteral("policy"),
                                                             QStringLiteral("export")});
    QVERIFY2(exported.code == 0, qPrintable(exported.describe()));
    const QString file = writeFile(QStringLiteral("policies.") + format, exported.out);
    QVERIFY(!file.isEmpty());

    const CliRun applied =
        ctl(m_target, {QStringLiteral("policy"), QStringLiteral("apply"), file,
                       QStringLiteral("--reason"), QStringLiteral("restore from git")});
    QVERIFY2(applied.code == 0, qPrintable(applied.describe()));
    QCOMPARE(policyCount(m_target), qint64(6));

    const CliRun again = ctl(m_target, json + QStringList{QStringLiteral("policy"),
                                                          QStringLiteral("export")});
    QVERIFY2(again.code == 0, qPrintable(again.describe()));
    QCOMPARE(again.out, exported.out);

    // The stored policies are the same too, as `policy list` shows them.
    const QStringList list{QStringLiteral("--json"), QStringLiteral("policy"),
                           QStringLiteral("list")};
    QJsonArray before = ctl(m_source, list).array(), after = ctl(m_target, list).array();
    QCOMPARE(after.size(), before.size());
    for (int i = 0; i < before.size(); ++i) {
        QJsonObject a = before[i].toObject(), b = after[i].toObject();
        for (const char* owned : {"revision", "updated_by", "updated_ms"}) {
            a.remove(QLatin1String(owned));
            b.remove(QLatin1String(owned));
        }
        QCOMPARE(b, a);
    }
    // Applying it again changes nothing.
    const CliRun plan = ctl(m_target, {QStringLiteral("policy"), QStringLiteral("apply"), file,
                                       QStringLiteral("--plan")});
    QVERIFY2(plan.code == 0, qPrintable(plan.describe()));
    QVERIFY2(plan.out.contains("0 to create, 0 to change, 0 to delete, 6 unchanged"),
             qPrintable(plan.describe()));
}

void tst_PolicyFiles::planSaysWhatWouldChange()
{
    setPolicy({QStringLiteral("like"), QStringLiteral("--limit"), QStringLiteral("10"),
               QStringLiteral("--window"), QStringLiteral("10s"), QStringLiteral("--ban"),
               QStringLiteral("1h")});
    const QString file = writeFile(QStringLiteral("plan.yaml"), R"(policies:
  - action: like
    windows: 10s:20
    ban: 2h
    time_zone: UTC
  - action: share
    windows: 1m:5
)");
    const QStringList apply{QStringLiteral("policy"), QStringLiteral("apply"), file};
    const CliRun plan = ctl(m_source, QStringList{QStringLiteral("--json")} + apply +
                                          QStringList{QStringLiteral("--plan")});
    QCOMPARE(plan.code, 1); // something would change
    const QJsonObject object = plan.object();
    QCOMPARE(object.value(QStringLiteral("create")).toArray().size(), 1);
    const QJsonArray change = object.value(QStringLiteral("change")).toArray();
    QCOMPARE(change.size(), 1);
    QCOMPARE(change[0].toObject().value(QStringLiteral("revision")).toInt(), 1);
    QStringList fields;
    for (const QJsonValue& field : change[0].toObject().value(QStringLiteral("fields")).toArray())
        fields << field.toObject().value(QStringLiteral("field")).toString() + QLatin1Char('=') +
                      field.toObject().value(QStringLiteral("before")).toString() +
                      QStringLiteral("->") + field.toObject().value(QStringLiteral("after")).toString();
    // The time zone is UTC in the file and the machine's zone in the stored one (policy set's
    // default), unless the machine runs in UTC: only the fields that differ are listed.
    fields.removeIf([](const QString& f) { return f.startsWith(QLatin1String("time_zone=")); });
    QCOMPARE(fields, (QStringList{QStringLiteral("windows=10s:10->10s:20"),
                                  QStringLiteral("ban=1h->2h")}));
    // --plan wrote nothing.
    QCOMPARE(policyCount(m_source), qint64(1));

    const CliRun applied = ctl(m_source, apply + QStringList{QStringLiteral("--reason"),
                                                             QStringLiteral("trial")});
    QVERIFY2(applied.code == 0, qPrintable(applied.describe()));
    QCOMPARE(ctl(m_source, apply + QStringList{QStringLiteral("--plan")}).code, 0);
    // Each write is audited with the actor and the reason.
    const QByteArray audit = m_source.command({"XRANGE", "tg:audit", "-", "+"});
    QVERIFY2(audit.contains("trial: 20 per 10s, ban 2h"), audit.constData());
    QVERIFY2(audit.contains("trial: 5 per 1m"), audit.constData());
}

void tst_PolicyFiles::pruneDeletesWhatTheFileDoesNotName()
{
    setPolicy({QStringLiteral("keep"), QStringLiteral("--limit"), QStringLiteral("1"),
               QStringLiteral("--window"), QStringLiteral("1s"), QStringLiteral("--tz"),
               QStringLiteral("UTC")});
    setPolicy({QStringLiteral("old"), QStringLiteral("--limit"), QStringLiteral("1"),
               QStringLiteral("--window"), QStringLiteral("1s")});
    const QString file = writeFile(QStringLiteral("prune.yaml"),
                                   "policies:\n  - {action: keep, windows: \"1s:1\"}\n");
    const QStringList apply{QStringLiteral("policy"), QStringLiteral("apply"), file,
                            QStringLiteral("--reason"), QStringLiteral("cleanup")};
    // Without --prune the other policy is kept and named.
    const CliRun kept = ctl(m_source, apply);
    QVERIFY2(kept.code == 0, qPrintable(kept.describe()));
    QVERIFY2(kept.out.contains("kept, not in the file (--prune deletes them): old"),
             qPrintable(kept.describe()));
    QCOMPARE(policyCount(m_source), qint64(2));
    const CliRun pruned = ctl(m_source, apply + QStringList{QStringLiteral("--prune")});
    QVERIFY2(pruned.code == 0, qPrintable(pruned.describe()));
    QVERIFY2(pruned.out.contains("- deleted old (revision 1)"), qPrintable(pruned.describe()));
    QCOMPARE(policyCount(m_source), qint64(1));
    QCOMPARE(m_source.command({"EXISTS", "tg:policy:old"}), QByteArray(":0\r\n"));
    // The delete is audited with the reason too.
    const QByteArray audit = m_source.command({"XREVRANGE", "tg:audit", "+", "-", "COUNT", "1"});
    QVERIFY2(audit.contains("policy_delete") && audit.contains("cleanup"), audit.constData());
}

void tst_PolicyFiles::applyNeedsAReason()
{
    const QString file = writeFile(QStringLiteral("reason.yaml"),
                                   "policies:\n  - {action: a, windows: \"1s:1\"}\n");
    const CliRun run = ctl(m_source, {QStringLiteral("policy"), QStringLiteral("apply"), file});
    QCOMPARE(run.code, 2);
    QVERIFY2(run.err.contains("--reason"), qPrintable(run.describe()));
    QCOMPARE(m_source.command({"DBSIZE"}), QByteArray(":0\r\n"));
}

void tst_PolicyFiles::badFilesWriteNothing_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    const QByteArray good = "  - {action: good, windows: \"1s:1\"}\n";
    QTest::newRow("not yaml") << QByteArray("policies: [ {action: a") << "not YAML or JSON";
    QTest::newRow("no list") << QByteArray("action: a\n") << "'policies:'";
    QTest::newRow("unknown field")
        << QByteArray("policies:\n" + good + "  - {action: b, windows: \"1s:1\", limt: 3}\n")
        << "policies[1] (b): unknown field 'limt'";
    QTest::newRow("bad window") << QByteArray("policies:\n" + good +
                                              "  - {action: b, windows: \"soon:1\"}\n")
                                << "policies[1] (b): field windows";
    QTest::newRow("zero limit") << QByteArray("policies:\n" + good +
                                              "  - {action: b, windows: \"1s:0\"}\n")
                                << "limit must be between 1";
    QTest::newRow("negative cost")
        << QByteArray("policies:\n" + good + "  - {action: b, windows: \"1s:5\", cost: -1}\n")
        << "cost must be between 1";
    QTest::newRow("absurd window")
        << QByteArray("policies:\n" + good + "  - {action: b, windows: \"400d:5\"}\n")
        << "window must be between";
    QTest::newRow("twice") << QByteArray("policies:\n" + good + good) << "appears twice";
    QTest::newRow("no action") << QByteArray("policies:\n  - {windows: \"1s:1\"}\n")
                               << "policies[0] has no action";
    QTest::newRow("nested value")
        << QByteArray("policies:\n  - {action: a, windows: [1, 2]}\n") << "single value";
    QTest::newRow("unknown zone")
        << QByteArray("policies:\n  - {action: a, windows: \"1s:1\", time_zone: Mars/Base}\n")
        << "unknown time zone";
    QTest::newRow("bad boolean")
        << QByteArray("policies:\n  - {action: a, windows: \"1s:1\", calendar: yes}\n")
        << "true or false";
}

void tst_PolicyFiles::badFilesWriteNothing()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    const QString file = writeFile(QStringLiteral("bad.yaml"), text);
    const CliRun run = ctl(m_source, {QStringLiteral("policy"), QStringLiteral("apply"), file,
                                      QStringLiteral("--reason"), QStringLiteral("r")});
    QCOMPARE(run.code, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), qPrintable(run.describe()));
    QCOMPARE(m_source.command({"DBSIZE"}), QByteArray(":0\r\n"));
}

// A policy hash edited by hand into something invalid is neither exported nor overwritten.
void tst_PolicyFiles::invalidStoredPolicyIsNamed()
{
    setPolicy({QStringLiteral("broken"), QStringLiteral("--limit"), QStringLiteral("1"),
               QStringLiteral("--window"), QStringLiteral("1s")});
    QCOMPARE(m_source.command({"HSET", "tg:policy:broken", "windows", "nonsense"}),
             QByteArray(":0\r\n"));
    const CliRun exported = ctl(m_source, {QStringLiteral("policy"), QStringLiteral("export")});
    QCOMPARE(exported.code, 3);
    QVERIFY2(exported.err.contains("broken") && exported.out.isEmpty(),
             qPrintable(exported.describe()));
    const QString file = writeFile(QStringLiteral("over.yaml"),
                                   "policies:\n  - {action: broken, windows: \"1s:1\"}\n");
    const CliRun applied = ctl(m_source, {QStringLiteral("policy"), QStringLiteral("apply"), file,
                                          QStringLiteral("--reason"), QStringLiteral("r")});
    QCOMPARE(applied.code, 3);
    QVERIFY2(applied.err.contains("broken"), qPrintable(applied.describe()));
    QCOMPARE(m_source.command({"HGET", "tg:policy:broken", "windows"}),
             QByteArray("$8\r\nnonsense\r\n"));
}

void tst_PolicyFiles::readsStandardInput()
{
    const QByteArray json = R"({"policies": [{"action": "a", "windows": "1m:10", "cost": 2,
        "count_denied": true}]})";
    const CliRun run = ctl(m_source,
                           {QStringLiteral("--json"), QStringLiteral("policy"),
                            QStringLiteral("apply"), QStringLiteral("-"), QStringLiteral("--reason"),
                            QStringLiteral("from a pipe")},
                           json);
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(QStringLiteral("applied")).toBool(), true);
    QCOMPARE(m_source.command({"HGET", "tg:policy:a", "cost"}), QByteArray("$1\r\n2\r\n"));
    QCOMPARE(m_source.command({"HGET", "tg:policy:a", "count_denied"}), QByteArray("$1\r\n1\r\n"));
}

// An id with a byte outside UTF-8 has no spelling in a text file: export says so.
void tst_PolicyFiles::actionThatIsNotUtf8IsNotExported()
{
    // argv cannot carry the byte 0xE9 alone through QProcess: the policy is moved to its key.
    setPolicy({QStringLiteral("cafe"), QStringLiteral("--limit"), QStringLiteral("1"),
               QStringLiteral("--window"), QStringLiteral("1s")});
    QCOMPARE(m_source.command({"RENAME", "tg:policy:cafe", "tg:policy:caf%E9"}),
             QByteArray("+OK\r\n"));
    QCOMPARE(m_source.command({"SREM", "tg:policies", "cafe"}), QByteArray(":1\r\n"));
    QCOMPARE(m_source.command({"SADD", "tg:policies", "caf%E9"}), QByteArray(":1\r\n"));
    const CliRun exported = ctl(m_source, {QStringLiteral("policy"), QStringLiteral("export")});
    QCOMPARE(exported.code, 3);
    QVERIFY2(exported.err.contains("not UTF-8") && exported.out.isEmpty(),
             qPrintable(exported.describe()));
}

QTEST_GUILESS_MAIN(tst_PolicyFiles)
#include "tst_PolicyFiles.moc"
