// tollgated's conformance suite (tests/data/rls_conformance): every case of cases.json asked in
// order, over gRPC by Python's grpcio and over HTTP by curl, each transport against a fresh
// tollgated and an empty redis-server; and what `tollgated check-config` says of the same files.
#include "tests/support/CoreFixture.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

class ServiceConformanceTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyCase_data();
    void everyCase();
    void checkConfigSaysWhereTollgateDiffers();
    void reloadAppliesTheNewLimit();

private:
    CoreFixture m_core;
};

static QString suitePath(const QString& name)
{
    return sourcePath(QStringLiteral("tests/data/rls_conformance/") + name);
}

void ServiceConformanceTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void ServiceConformanceTest::everyCase_data()
{
    QTest::addColumn<QString>("transport");
    QTest::newRow("grpc") << QStringLiteral("grpc");
    QTest::newRow("http") << QStringLiteral("http");
}

void ServiceConformanceTest::everyCase()
{
    QFETCH(QString, transport);
    QVERIFY(m_core.flush());
    ServiceProcess service;
    QVERIFY2(service.start(m_core.server().url(), suitePath(QStringLiteral("config"))),
             qPrintable(service.errorString()));
    // The configuration's policies are in Redis before the first case counts.
    QVERIFY2(service.waitForLog("unchanged"),
             service.stderrText().constData());
    const QString where = transport == QLatin1String("grpc")
                              ? service.grpcTarget()
                              : QStringLiteral("http://127.0.0.1:%1").arg(service.httpPort());
    const PythonRun run =
        runWithStubs(sourcePath(QStringLiteral("tests/python/rls_conformance.py")),
                     {transport, where, suitePath(QStringLiteral("cases.json"))}, {}, 120000);
    QByteArray failures;
    for (const QByteArray& line : run.lines) {
        if (!line.startsWith("ok "))
            failures += line + '\n';
    }
    QVERIFY2(run.exitCode == 0, QByteArray(failures + run.err).constData());
}

void ServiceConformanceTest::checkConfigSaysWhereTollgateDiffers()
{
    QProcess check;
    check.start(tollgatedPath(), {QStringLiteral("check-config"), suitePath(QStringLiteral("config"))});
    QVERIFY(check.waitForFinished(30000));
    const QByteArray out = check.readAllStandardOutput() + check.readAllStandardError();
    QCOMPARE(check.exitCode(), 0);
    for (const char* expected :
         {"wildcards.yaml:11: wildcards.route_/api/*/action: a wildcard inside the value",
          "wildcards.yaml:14: wildcards.route_foo*bar*baz: a wildcard inside the value"}) {
        QVERIFY2(out.contains(expected), out.constData());
    }
    QVERIFY2(out.contains("basic.yaml:29: basic.zero: requests_per_unit 0 refuses every request without counting it"),
             out.constData());
    // A trailing wildcard is what every release of envoyproxy/ratelimit reads alike.
    QVERIFY2(!out.contains("route_files/*: a wildcard"), out.constData());
}

// A reload (SIGHUP) with a changed limit: the next answer has it, as envoyproxy/ratelimit's
// answers follow its runtime directory.
void ServiceConformanceTest::reloadAppliesTheNewLimit()
{
    QVERIFY(m_core.flush());
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("reload.yaml"));
    const auto write = [&](int limit) {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write("domain: reload\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: " +
                  QByteArray::number(limit) + "}\n");
    };
    write(2);
    ServiceProcess service;
    QVERIFY2(service.start(m_core.server().url(), dir.path()), qPrintable(service.errorString()));
    const QByteArray ask = R"({"domain":"reload","descriptors":[{"entries":[{"key":"k","value":"a"}]}]})";
    QVERIFY2(service.curl("POST", "/v1/decide", ask).body.contains(R"("requests_per_unit":2)"),
             service.stderrText().constData());
    write(5);
    service.hangUp();
    QVERIFY2(service.waitForLog("reloaded"), service.stderrText().constData());
    // Checks (hits_addend 0, nothing counted) until the new policy is written and read back.
    const QByteArray check = R"({"domain":"reload","descriptors":[{"entries":[{"key":"k","value":"a"}],"hits_addend":0}]})";
    QTRY_VERIFY_WITH_TIMEOUT(service.curl("POST", "/v1/decide", check).body.contains(R"("requests_per_unit":5)"), 10000);
    const QByteArray after = service.curl("POST", "/v1/decide", ask).body;
    QVERIFY2(after.contains(R"("requests_per_unit":5)") && after.contains(R"("limit_remaining":3)"),
             after.constData());
}

QTEST_GUILESS_MAIN(ServiceConformanceTest)
#include "tst_ServiceConformance.moc"
