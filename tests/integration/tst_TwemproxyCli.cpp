// tollgatectl through a real nutcracker, as the operator of a Twemproxy pool uses it: policy set,
// hit, peek, ban, unban, audit and subjects through the proxy; repair across the backends of
// counters an ejection or another client left without a TTL, Tollgate's own and, by a pattern,
// the naive INCR/EXPIRE counter's (dry run, fix, audit entry); what needs a whole server refused
// with a message when the URL names no backends.

#include "tests/support/CliRunner.h"
#include "tests/support/NaiveCounterLoad.h"
#include "tests/support/Twemproxy.h"

#include <QtTest>

using tollgate::test::CliRun;
using tollgate::test::NaiveCounterLoad;
using tollgate::test::Twemproxy;

class TwemproxyCliTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void operatorSessionThroughTheProxy();
    void repairAcrossBackends();
    void patternRepairOfTheNaiveCountersKeys();
    void withoutBackendsWholeServerWorkIsRefused();

private:
    CliRun ctl(std::initializer_list<QByteArray> args) { return ctlAt(m_url, args); }
    CliRun ctlAt(const QString& url, std::initializer_list<QByteArray> args);

    Twemproxy m_pool;
    QString m_url;
};

void TwemproxyCliTest::initTestCase()
{
    QVERIFY2(m_pool.start(), qPrintable(m_pool.errorString()));
    m_url = QStringLiteral("redis+twemproxy://") + m_pool.address() + QStringLiteral("?config=") +
            m_pool.configPath() + QStringLiteral("&pool=") + m_pool.poolName();
}

CliRun TwemproxyCliTest::ctlAt(const QString& url, std::initializer_list<QByteArray> args)
{
    QStringList list;
    for (const QByteArray& arg : args)
        list << QString::fromUtf8(arg);
    return tollgate::test::runCli(tollgate::test::tollgatectlPath(), url, list);
}

void TwemproxyCliTest::operatorSessionThroughTheProxy()
{
    CliRun run = ctl({"policy", "set", "spam", "--limit", "2", "--window", "1m"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({"--json", "policy", "get", "spam"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));

    for (const char* user : {"alice", "bob", "carol"}) {
        run = ctl({"--json", "hit", "spam", user});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
    }
    run = ctl({"--json", "hit", "spam", "alice"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({"--json", "peek", "spam", "alice"});
    QVERIFY2(run.code != 0 || !run.object().value(QStringLiteral("allowed")).toBool(true), qPrintable(run.describe()));
    run = ctl({"--json", "hit", "spam", "alice"});
    QVERIFY2(!run.object().value(QStringLiteral("allowed")).toBool(true), qPrintable(run.describe()));

    run = ctl({"ban", "bob", "--action", "spam", "--for", "1h", "--reason", "spam wave"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({"--json", "hit", "spam", "bob"});
    QVERIFY2(!run.object().value(QStringLiteral("allowed")).toBool(true), qPrintable(run.describe()));
    run = ctl({"unban", "bob", "--reason", "appeal"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));

    run = ctl({"--json", "audit", "--user", "bob"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains("\"unban\"") && run.out.contains("\"ban\""), qPrintable(run.describe()));
    // The merged view: policy changes and every user's changes, from every backend.
    run = ctl({"--json", "audit"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains("\"policy\"") && run.out.contains("\"unban\""),
             qPrintable(run.describe()));

    run = ctl({"--json", "subjects", "--action", "spam"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    for (const char* user : {"alice", "bob", "carol"})
        QVERIFY2(run.out.contains(user), qPrintable(run.describe()));
}

void TwemproxyCliTest::repairAcrossBackends()
{
    // A counter of ours without a TTL on each backend, as an ejection or an old client leaves
    // them; the proxy would reach at most one of them for the same name.
    for (int i = 0; i < m_pool.backendCount(); ++i)
        QCOMPARE(m_pool.backend(i).command({"SET", "tg:{stray" + QByteArray::number(i) +
                                                      "}:spam:fw:60000", "5"}),
                 QByteArray("+OK\r\n"));
    CliRun dry = ctl({"--json", "repair"});
    QVERIFY2(dry.code == 0 || dry.code == 1, qPrintable(dry.describe()));
    for (int i = 0; i < m_pool.backendCount(); ++i)
        QVERIFY2(dry.out.contains(QByteArray(QByteArray("stray") + QByteArray::number(i))),
                 qPrintable(dry.describe()));
    QCOMPARE(m_pool.keysWithoutTtl("tg:{stray*"), qint64(m_pool.backendCount()));

    CliRun fixed = ctl({"repair", "--fix", "--reason", "after ejections"});
    QVERIFY2(fixed.code == 0, qPrintable(fixed.describe()));
    QCOMPARE(m_pool.keysWithoutTtl("tg:{stray*"), qint64(0));
    QCOMPARE(m_pool.keysWithoutTtl("tg:*"), qint64(m_pool.keysWithoutTtl("tg:{:}*")));
}

void TwemproxyCliTest::patternRepairOfTheNaiveCountersKeys()
{
    // The two-command counter through the pool while a backend is ejected and comes back: it
    // leaves keys without a TTL (integration.TwemproxyPool shows it does).
    NaiveCounterLoad naive(m_pool.host(), m_pool.port(), "likes:");
    naive.start();
    qint64 lost = 0;
    for (int round = 0; round < 4 && lost == 0; ++round) {
        QTest::qWait(1000);
        QVERIFY(m_pool.pause(0));
        QTest::qWait(2500);
        QVERIFY(m_pool.resume(0));
        QTest::qWait(1500);
        lost = m_pool.keysWithoutTtl(naive.pattern());
    }
    naive.stop();
    lost = m_pool.keysWithoutTtl(naive.pattern());
    QVERIFY2(lost > 0, "the naive counter left no key without a TTL: nothing to repair");

    // The dry run lists them, on whichever backend they are, and changes nothing.
    CliRun dry = ctl({"--json", "repair", "--pattern", "likes:*", "--ttl", "1h", "--dry-run"});
    QVERIFY2(dry.code == 0, qPrintable(dry.describe()));
    QCOMPARE(dry.object().value(QStringLiteral("found")).toInteger(), lost);
    QCOMPARE(dry.object().value(QStringLiteral("items")).toArray().size(), lost);
    QCOMPARE(dry.object().value(QStringLiteral("mode")).toString(), QStringLiteral("dry"));
    QCOMPARE(m_pool.keysWithoutTtl(naive.pattern()), lost);

    CliRun fixed = ctl({"--json", "repair", "--pattern", "likes:*", "--ttl", "1h", "--rate", "500",
                        "--fix", "--reason", "counters left by the INCR/EXPIRE client"});
    QVERIFY2(fixed.code == 0, qPrintable(fixed.describe()));
    QCOMPARE(fixed.object().value(QStringLiteral("fixed")).toInteger(), lost);
    QCOMPARE(m_pool.keysWithoutTtl(naive.pattern()), qint64(0));

    CliRun audit = ctl({"--json", "audit", "--count", "100"});
    QVERIFY2(audit.code == 0, qPrintable(audit.describe()));
    qint64 audited = 0;
    for (const QJsonValue& entry : audit.array()) {
        const QJsonObject object = entry.toObject();
        if (object.value(QStringLiteral("event")).toString() != QLatin1String("repair") ||
            !object.value(QStringLiteral("detail")).toString().startsWith(QStringLiteral("pattern likes:*")))
            continue;
        QCOMPARE(object.value(QStringLiteral("reason")).toString(),
                 QStringLiteral("counters left by the INCR/EXPIRE client"));
        const QString detail = object.value(QStringLiteral("detail")).toString();
        audited += detail.section(QStringLiteral("fixed="), 1).section(QLatin1Char(':'), 0, 0).toLongLong();
    }
    QCOMPARE(audited, lost);

    // Bad input says what is wrong before anything is sent.
    for (const std::initializer_list<QByteArray>& bad :
         {std::initializer_list<QByteArray>{"repair", "--pattern", "likes:*"},
          std::initializer_list<QByteArray>{"repair", "--pattern", "tg:*", "--ttl", "1h"},
          std::initializer_list<QByteArray>{"repair", "--pattern", "likes:*", "--ttl", "1h", "--rate", "-1"},
          std::initializer_list<QByteArray>{"repair", "--pattern", "likes:*", "--ttl", "1h", "--dry-run", "--fix"}}) {
        const CliRun run = ctl(bad);
        QVERIFY2(run.code == 2 && !run.err.isEmpty(), qPrintable(run.describe()));
    }
}

void TwemproxyCliTest::withoutBackendsWholeServerWorkIsRefused()
{
    const QString bare = QStringLiteral("redis+twemproxy://") + m_pool.address();
    // What the proxy forwards works without them...
    CliRun run = ctlAt(bare, {"--json", "hit", "spam", "dave"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    // ... what needs a whole server says what is missing, and nothing hangs.
    for (const QByteArray& command : {QByteArray("subjects"), QByteArray("repair"),
                                      QByteArray("audit")}) {
        run = ctlAt(bare, {command});
        QVERIFY2(run.code != 0 && run.code != -1, qPrintable(run.describe()));
        QVERIFY2(run.err.contains("backends="), qPrintable(run.describe()));
    }
}

QTEST_GUILESS_MAIN(TwemproxyCliTest)
#include "tst_TwemproxyCli.moc"
