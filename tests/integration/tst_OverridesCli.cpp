// `tollgatectl override set | list | delete` as support types them, against a real redis-server:
// the documented shapes, `hit --json` saying which override decided, and bad input (a limit of
// 0, --for 0, an unknown action, a window the policy's algorithm cannot hold, no end, no reason,
// odd and oversized ids) answered with exit 2 and nothing written; an ACL user that may not
// write gets exit 3 and nothing written.

#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;

class OverridesCliTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void documentedShapes();
    void badInputWritesNothing_data();
    void badInputWritesNothing();
    void refusedAclUserExitsThree();

private:
    test::CliRun ctl(const QStringList& args, const QString& url = {});
    CoreFixture m_core;
};

void OverridesCliTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void OverridesCliTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
    const test::CliRun run =
        ctl({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
             QStringLiteral("--limit"), QStringLiteral("2"), QStringLiteral("--window"),
             QStringLiteral("1m")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const test::CliRun log =
        ctl({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("search"),
             QStringLiteral("--limit"), QStringLiteral("2"), QStringLiteral("--window"),
             QStringLiteral("1m"), QStringLiteral("--algorithm"), QStringLiteral("sliding_log")});
    QVERIFY2(log.code == 0, qPrintable(log.describe()));
}

test::CliRun OverridesCliTest::ctl(const QStringList& args, const QString& url)
{
    return test::runCli(test::tollgatectlPath(), url.isEmpty() ? m_core.server().url() : url, args);
}

void OverridesCliTest::documentedShapes()
{
    const auto s = [](const char* text) { return QString::fromUtf8(text); };
    test::CliRun run =
        ctl({s("override"), s("set"), s("like"), s("ann"), s("--limit"), s("5"), s("--window"),
             s("1m"), s("--for"), s("24h"), s("--reason"), s("enterprise trial")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({s("--json"), s("hit"), s("like"), s("ann")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(s("override")).toString(), s("limit"));
    QCOMPARE(run.object().value(s("limit")).toInt(), 5);

    run = ctl({s("override"), s("set"), s("like"), s("bo"), s("--windows"), s("1m:3,1h:10"),
               s("--until"), s("2099-01-31"), s("--reason"), s("R")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    run = ctl({s("--json"), s("hit"), s("like"), s("bo")}); // other windows: redirected
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(s("limit")).toInt(), 3);

    run = ctl({s("override"), s("set"), s("*"), s("cy"), s("--unlimited"), s("--for"), s("2h"),
               s("--reason"), s("load test")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    for (int i = 0; i < 4; ++i) {
        run = ctl({s("--json"), s("hit"), s("like"), s("cy")});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        QCOMPARE(run.object().value(s("override")).toString(), s("unlimited"));
    }
    run = ctl({s("override"), s("set"), s("like"), s("dee"), s("--unlimited"), s("--permanent"),
               s("--reason"), s("partner")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));

    run = ctl({s("--json"), s("override"), s("list")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.array().size(), 4);
    run = ctl({s("--json"), s("override"), s("list"), s("bo")});
    QCOMPARE(run.array().size(), 1);
    const QJsonObject bo = run.array().at(0).toObject();
    QCOMPARE(bo.value(s("kind")).toString(), s("limit"));
    QCOMPARE(bo.value(s("windows")).toArray().size(), 2);
    QCOMPARE(bo.value(s("reason")).toString(), s("R"));
    run = ctl({s("--json"), s("override"), s("list"), s("--action"), s("search")});
    QCOMPARE(run.array().size(), 1); // cy's "*" only
    run = ctl({s("override"), s("list")});
    QVERIFY2(run.code == 0 && run.out.contains("enterprise trial"), qPrintable(run.describe()));

    run = ctl(
        {s("--json"), s("override"), s("delete"), s("like"), s("ann"), s("--reason"), s("over")});
    QVERIFY2(run.code == 0 && run.object().value(s("deleted")).toBool(),
             qPrintable(run.describe()));
    run = ctl({s("--json"), s("hit"), s("like"), s("ann")});
    QVERIFY(!run.object().contains(s("override")));
    QCOMPARE(run.object().value(s("limit")).toInt(), 2);
}

void OverridesCliTest::badInputWritesNothing_data()
{
    QTest::addColumn<QStringList>("args");
    const auto set = [](QStringList rest) {
        return QStringList{QStringLiteral("override"), QStringLiteral("set")} + rest;
    };
    const QString huge =
        QString(100 * 1024, QLatin1Char('u')); // (one argv string holds at most 128 KiB)
    const QStringList timed{QStringLiteral("--for"), QStringLiteral("1h"),
                            QStringLiteral("--reason"), QStringLiteral("r")};
    const QStringList five{QStringLiteral("--limit"), QStringLiteral("5"),
                           QStringLiteral("--window"), QStringLiteral("1m")};
    const QString u = QStringLiteral("u"), like = QStringLiteral("like");
    QTest::newRow("limit 0") << set(QStringList{like, u, QStringLiteral("--limit"),
                                                QStringLiteral("0"), QStringLiteral("--window"),
                                                QStringLiteral("1m")} +
                                    timed);
    QTest::newRow("--for 0") << set(QStringList{like, u} + five +
                                    QStringList{QStringLiteral("--for"), QStringLiteral("0"),
                                                QStringLiteral("--reason"), QStringLiteral("r")});
    QTest::newRow("unknown action") << set(QStringList{QStringLiteral("nope"), u} + five + timed);
    QTest::newRow("a window past a year")
        << set(QStringList{like, u, QStringLiteral("--windows"), QStringLiteral("400d:5")} + timed);
    QTest::newRow("longer than 100 years")
        << set(QStringList{like, u} + five +
               QStringList{QStringLiteral("--for"), QStringLiteral("40000d"),
                           QStringLiteral("--reason"), QStringLiteral("r")});
    QTest::newRow("past the log's limit") << set(
        QStringList{QStringLiteral("search"), u, QStringLiteral("--limit"),
                    QStringLiteral("100001"), QStringLiteral("--window"), QStringLiteral("1m")} +
        timed);
    QTest::newRow("no end") << set(QStringList{like, u} + five +
                                   QStringList{QStringLiteral("--reason"), QStringLiteral("r")});
    QTest::newRow("two ends") << set(QStringList{like, u} + five + timed +
                                     QStringList{QStringLiteral("--permanent")});
    QTest::newRow("no reason") << set(QStringList{like, u} + five +
                                      QStringList{QStringLiteral("--for"), QStringLiteral("1h")});
    QTest::newRow("limit without window")
        << set(QStringList{like, u, QStringLiteral("--limit"), QStringLiteral("5")} + timed);
    QTest::newRow("limit and unlimited")
        << set(QStringList{like, u, QStringLiteral("--unlimited")} + five + timed);
    QTest::newRow("until in the past")
        << set(QStringList{like, u} + five +
               QStringList{QStringLiteral("--until"), QStringLiteral("2001-01-01"),
                           QStringLiteral("--reason"), QStringLiteral("r")});
    QTest::newRow("100 KB user") << set(QStringList{like, huge} + five + timed);
    QTest::newRow("empty user") << set(QStringList{like, QString()} + five + timed);
    QTest::newRow("delete without reason")
        << QStringList{QStringLiteral("override"), QStringLiteral("delete"), like, u};
    QTest::newRow("no subcommand")
        << QStringList{QStringLiteral("override"), QStringLiteral("put")};
}

void OverridesCliTest::badInputWritesNothing()
{
    QFETCH(QStringList, args);
    const qint64 keys = m_core.dbsize();
    const test::CliRun run = ctl(args);
    QVERIFY2(run.code == 2 && !run.err.isEmpty(), qPrintable(run.describe()));
    QVERIFY2(run.err.count('\n') == 1, qPrintable(run.describe())); // one clear line
    QCOMPARE(m_core.dbsize(), keys);
}

void OverridesCliTest::refusedAclUserExitsThree()
{
    for (const auto& setUser : m_core.onEveryPrimary({"ACL", "SETUSER", "support", "reset", "on",
                                                      ">support-pw", "~*", "&*", "+@all", "-xadd"}))
        QVERIFY(setUser);
    ConnectionOptions options = m_core.options();
    options.user = QStringLiteral("support");
    options.password = QStringLiteral("support-pw");
    const qint64 keys = m_core.dbsize();
    const test::CliRun run =
        ctl({QStringLiteral("override"), QStringLiteral("set"), QStringLiteral("like"),
             QStringLiteral("eve"), QStringLiteral("--unlimited"), QStringLiteral("--for"),
             QStringLiteral("1h"), QStringLiteral("--reason"), QStringLiteral("r")},
            options.toUrl(true));
    QVERIFY2(run.code == 3 && run.err.contains("nothing was written"), qPrintable(run.describe()));
    QCOMPARE(m_core.dbsize(), keys);
}

QTEST_GUILESS_MAIN(OverridesCliTest)
#include "tst_OverridesCli.moc"
