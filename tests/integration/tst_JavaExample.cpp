// examples/java: the Java program a crawler's author copies, compiled with the JDK's javac and
// run against a private redis-server and tollgated, prints the decisions its README shows:
// allowed, warned, then denied with 429 and banned, with Retry-After and the policy's message.
#include "tests/support/CoreFixture.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

class JavaExampleTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void printsTheReadmesDecisions();
    void namesAnActionWithoutPolicy();

private:
    QByteArray run(const QStringList& args, int* exitCode);

    CoreFixture m_core;
    ServiceProcess m_service;
    QTemporaryDir m_classes;
    QString m_java;
};

void JavaExampleTest::initTestCase()
{
    const QString javac = QStandardPaths::findExecutable(QStringLiteral("javac"));
    m_java = QStandardPaths::findExecutable(QStringLiteral("java"));
    if (javac.isEmpty() || m_java.isEmpty())
        QFAIL("javac and java not found: scripts/setup.sh installs default-jdk-headless");
    QProcess compile;
    compile.start(javac, {QStringLiteral("-d"), m_classes.path(),
                          sourcePath(QStringLiteral("examples/java/TollgateCrawlerLimit.java"))});
    QVERIFY(compile.waitForFinished(120'000));
    QVERIFY2(compile.exitCode() == 0, compile.readAllStandardError().constData());

    TOLLGATE_REQUIRE(m_core, start());
    // The README's policy: 3 a minute, warned from the 2nd, an hour's ban after exceeding.
    Policy crawl = makePolicy("crawl", 3, 60'000);
    crawl.warn = 1;
    crawl.banMs = 3'600'000;
    crawl.message = QStringLiteral("Crawl slower");
    QVERIFY(m_core.save(crawl));
    QVERIFY2(m_service.start(m_core.server().url(), sourcePath(QStringLiteral("tests/data/service_edge.yaml"))),
             qPrintable(m_service.errorString()));
    QVERIFY2(m_service.waitForLog("unchanged"), m_service.stderrText().constData());
}

QByteArray JavaExampleTest::run(const QStringList& args, int* exitCode)
{
    QProcess java;
    java.start(m_java, QStringList{QStringLiteral("-cp"), m_classes.path(), QStringLiteral("TollgateCrawlerLimit"),
                                   QStringLiteral("http://127.0.0.1:%1").arg(m_service.httpPort())} +
                           args);
    if (!java.waitForFinished(60'000))
        return "java did not finish";
    *exitCode = java.exitCode();
    return java.readAllStandardOutput() + java.readAllStandardError();
}

void JavaExampleTest::printsTheReadmesDecisions()
{
    int exitCode = -1;
    const QByteArray output = run({QStringLiteral("crawl"), QStringLiteral("bot-7"), QStringLiteral("5")}, &exitCode);
    QCOMPARE(exitCode, 0);
    QCOMPARE(output, QByteArray("allowed tier=ok remaining=2\n"
                                "allowed tier=warn remaining=1\n"
                                "allowed tier=warn remaining=0\n"
                                "denied status=429 tier=deny retry_after=3600 message=Crawl slower\n"
                                "denied status=429 tier=banned retry_after=3600 message=Crawl slower\n"));
}

void JavaExampleTest::namesAnActionWithoutPolicy()
{
    int exitCode = -1;
    const QByteArray output = run({QStringLiteral("nothing"), QStringLiteral("bot-7"), QStringLiteral("1")}, &exitCode);
    QVERIFY(exitCode != 0);
    QVERIFY2(output.contains("tollgated answered 404"), output.constData());
}

QTEST_GUILESS_MAIN(JavaExampleTest)
#include "tst_JavaExample.moc"
