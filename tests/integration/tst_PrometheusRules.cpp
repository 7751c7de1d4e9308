// resources/prometheus/tollgate-rules.yml as operators get it: `promtool check rules` accepts
// it and its unit tests (tollgate-rules.test.yml: each alert fires when it should and not
// before) pass. The harness itself is checked on a broken copy, so the test can fail.
#include "tests/support/PrometheusServer.h"
#include "tests/support/TestEnv.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate::test;

class PrometheusRulesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void checkRules();
    void unitTests();
    void brokenRulesAreRefused();

private:
    const QString m_rules = sourcePath(QStringLiteral("resources/prometheus/tollgate-rules.yml"));
    const QString m_tests =
        sourcePath(QStringLiteral("resources/prometheus/tollgate-rules.test.yml"));
};

void PrometheusRulesTest::initTestCase()
{
    if (!PrometheusServer::available())
        QFAIL("prometheus and promtool must be on PATH (scripts/setup.sh installs them)");
}

void PrometheusRulesTest::checkRules()
{
    const ToolRun run = runTool(QStringLiteral("promtool"),
                                {QStringLiteral("check"), QStringLiteral("rules"), m_rules});
    QVERIFY2(run.code == 0, run.output.constData());
    QVERIFY2(run.output.contains("SUCCESS: 9 rules found"), run.output.constData());
}

void PrometheusRulesTest::unitTests()
{
    const ToolRun run = runTool(QStringLiteral("promtool"),
                                {QStringLiteral("test"), QStringLiteral("rules"), m_tests});
    QVERIFY2(run.code == 0, run.output.constData());
    QVERIFY2(run.output.contains("SUCCESS"), run.output.constData());
}

void PrometheusRulesTest::brokenRulesAreRefused()
{
    // The storm threshold moved from 50 to 5000: the unit test that expects it to fire fails.
    QFile rules(m_rules);
    QVERIFY(rules.open(QIODevice::ReadOnly));
    QByteArray text = rules.readAll();
    QVERIFY(text.contains("increase10m > 50\n"));
    text.replace("increase10m > 50\n", "increase10m > 5000\n");
    QTemporaryDir dir;
    QFile copy(dir.filePath(QStringLiteral("tollgate-rules.yml")));
    QVERIFY(copy.open(QIODevice::WriteOnly) && copy.write(text) == text.size());
    copy.close();
    QVERIFY(QFile::copy(m_tests, dir.filePath(QStringLiteral("tollgate-rules.test.yml"))));
    const ToolRun run = runTool(QStringLiteral("promtool"),
                                {QStringLiteral("test"), QStringLiteral("rules"),
                                 dir.filePath(QStringLiteral("tollgate-rules.test.yml"))});
    QVERIFY2(run.code != 0, run.output.constData());
    QVERIFY2(run.output.contains("TollgateAutomaticBanStorm"), run.output.constData());
}

QTEST_GUILESS_MAIN(PrometheusRulesTest)
#include "tst_PrometheusRules.moc"
