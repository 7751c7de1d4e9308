// tollgated on Redis behind Sentinel (a private primary, replica and three sentinels), with
// Python's grpcio streaming requests while the sentinels fail over: no request fails (the
// failure policy covers the seconds without a primary) and decisions come from the new primary.
#include "tests/support/RedisSentinelGroup.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

class ServiceSentinelTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void failoverUnderLoad();

private:
    RedisSentinelGroup m_group;
};

void ServiceSentinelTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_group, start());
}

void ServiceSentinelTest::failoverUnderLoad()
{
    ServiceProcess service;
    QVERIFY2(service.start(m_group.url(), sourcePath(QStringLiteral("tests/data/service_edge.yaml")),
                           {QStringLiteral("--on-error"), QStringLiteral("allow")}),
             qPrintable(service.errorString()));
    QVERIFY2(service.waitForLog("unchanged"), service.stderrText().constData());
    runRlsClient({service.grpcTarget(), QStringLiteral("health")}); // generates the stubs

    QProcess load;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"), rlsStubDir());
    load.setProcessEnvironment(env);
    load.start(QStringLiteral("/usr/bin/python3"),
               {sourcePath(QStringLiteral("tests/python/rls_client.py")), service.grpcTarget(),
                QStringLiteral("load"), QStringLiteral("10"), QStringLiteral("2")});
    load.write(R"({"domain":"edge","descriptors":[{"entries":[{"key":"bulk","value":"failover"}]}]})"
               "\n");
    load.closeWriteChannel();

    QTest::qWait(1500);
    const int oldPrimary = m_group.primaryIndex();
    QVERIFY(oldPrimary >= 0);
    QVERIFY(m_group.failover());
    QVERIFY2(m_group.waitForPrimaryOtherThan(oldPrimary, true), qPrintable(m_group.errorString()));
    if (load.state() != QProcess::NotRunning)
        QVERIFY(load.waitForFinished(60000));
    const QJsonObject result = QJsonDocument::fromJson(load.readAllStandardOutput()).object();
    qInfo("through a failover: %s", QJsonDocument(result).toJson(QJsonDocument::Compact).constData());
    QVERIFY2(result.value(QStringLiteral("errors")).toObject().isEmpty(), QJsonDocument(result).toJson().constData());
    QVERIFY(result.value(QStringLiteral("ok")).toInt() + result.value(QStringLiteral("over_limit")).toInt() > 100);

    // Decided by Redis again, now the new primary.
    QTRY_VERIFY_WITH_TIMEOUT(service.curl("POST", "/v1/hit", R"({"action":"edge.remote_address","user":"after"})")
                                 .body.contains("\"decided_by\":\"redis\""),
                             15000);
}

QTEST_GUILESS_MAIN(ServiceSentinelTest)
#include "tst_ServiceSentinel.moc"
