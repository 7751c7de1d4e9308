// tollgated under trouble, with Python's grpcio as the client: Redis killed while requests
// stream (the failure policy answers, /readyz and gRPC health turn not ready without it), the
// configuration reloaded under load (SIGHUP and a change of the file) with no failed request,
// and a bad configuration that leaves the last good one running and says so.
#include "tests/support/CoreFixture.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

namespace {

QByteArray configText(int perMinute)
{
    return "domain: edge\n"
           "descriptors:\n"
           "  - key: remote_address\n"
           "    rate_limit: {unit: minute, requests_per_unit: " +
           QByteArray::number(perMinute) + "}\n";
}

const QByteArray kRequest =
    R"({"domain":"edge","descriptors":[{"entries":[{"key":"remote_address","value":"10.9.9.9"}]}]})";

// The python load generator, started and left running.
// rls_client.py running beside the test: `command` and its arguments, against `service`.
std::unique_ptr<QProcess> startClient(const ServiceProcess& service, const QStringList& command)
{
    auto client = std::make_unique<QProcess>();
    runRlsClient({service.grpcTarget(), QStringLiteral("health")}); // generates the stubs
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"), rlsStubDir());
    client->setProcessEnvironment(env);
    client->start(QStringLiteral("/usr/bin/python3"),
                  QStringList{sourcePath(QStringLiteral("tests/python/rls_client.py")),
                              service.grpcTarget()} +
                      command);
    return client;
}

std::unique_ptr<QProcess> startLoad(const ServiceProcess& service, double seconds, int inFlight)
{
    auto load = startClient(service, {QStringLiteral("load"), QString::number(seconds),
                                      QString::number(inFlight)});
    load->write(kRequest + '\n');
    load->closeWriteChannel();
    return load;
}

QJsonObject finish(QProcess& load)
{
    load.waitForFinished(60000);
    return QJsonDocument::fromJson(load.readAllStandardOutput()).object();
}

bool writeFile(const QString& path, const QByteArray& text)
{
    // As editors and config managers do: a new file renamed over the old one.
    QFile file(path + QStringLiteral(".new"));
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        return false;
    file.close();
    QFile::remove(path);
    return QFile::rename(path + QStringLiteral(".new"), path);
}

} // namespace

class ServiceResilienceTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void reloadUnderLoadFailsNoRequest();
    void badConfigurationKeepsTheLastGood();
    void redisKilledMidStream();

private:
    int currentLimit(ServiceProcess& service);

    CoreFixture m_core;
    QTemporaryDir m_dir;
    QString m_config;
};

void ServiceResilienceTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    m_config = m_dir.filePath(QStringLiteral("ratelimit.yaml"));
    QVERIFY(writeFile(m_config, configText(1'000'000)));
}

int ServiceResilienceTest::currentLimit(ServiceProcess& service)
{
    const auto http = service.curl("POST", "/v1/decide", kRequest);
    const QJsonObject status = QJsonDocument::fromJson(http.body).object().value(QStringLiteral("statuses")).toArray().at(0).toObject();
    return status.value(QStringLiteral("current_limit")).toObject().value(QStringLiteral("requests_per_unit")).toInt();
}

void ServiceResilienceTest::reloadUnderLoadFailsNoRequest()
{
    ServiceProcess service;
    QVERIFY2(service.start(m_core.server().url(), m_config), qPrintable(service.errorString()));
    QVERIFY(service.waitForLog("unchanged"));
    auto load = startLoad(service, 4, 4);
    QTest::qWait(1000);
    QVERIFY(writeFile(m_config, configText(2'000'000)));
    service.hangUp();
    QVERIFY2(service.waitForLog("reloaded"), service.stderrText().constData());
    QTest::qWait(1000);
    QVERIFY(writeFile(m_config, configText(3'000'000))); // a change of the file alone
    QTRY_VERIFY_WITH_TIMEOUT(currentLimit(service) == 3'000'000, 5000);
    const QJsonObject result = finish(*load);
    qInfo("load across two reloads: %s", QJsonDocument(result).toJson(QJsonDocument::Compact).constData());
    QVERIFY2(result.value(QStringLiteral("ok")).toInt() > 100, QJsonDocument(result).toJson().constData());
    QVERIFY2(result.value(QStringLiteral("errors")).toObject().isEmpty(), QJsonDocument(result).toJson().constData());
    // The new limit was written to Redis too, so the console and every instance see it.
    auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("edge.remote_address", context, done);
    });
    QVERIFY(policy);
    QCOMPARE(policy->windows.front().limit, 3'000'000);
}

void ServiceResilienceTest::badConfigurationKeepsTheLastGood()
{
    QVERIFY(writeFile(m_config, configText(1'000)));
    ServiceProcess service;
    QVERIFY2(service.start(m_core.server().url(), m_config), qPrintable(service.errorString()));
    QVERIFY(service.waitForLog("unchanged"));
    QTRY_COMPARE_WITH_TIMEOUT(currentLimit(service), 1'000, 5000);
    QVERIFY(writeFile(m_config, "domain: edge\ndescriptors:\n  - key: remote_address\n    rate_limit: {unit: fortnight}\n"));
    service.hangUp();
    QVERIFY2(service.waitForLog("reload failed"), service.stderrText().constData());
    QVERIFY(service.stderrText().contains("ratelimit.yaml:4: rate_limit.unit"));
    const auto ready = service.curl("GET", "/readyz");
    QCOMPARE(ready.status, 200); // still deciding, with the last good configuration
    QVERIFY2(ready.body.contains("the last reload failed") && ready.body.contains("rate_limit.unit"),
             ready.body.constData());
    QVERIFY(service.curl("GET", "/metrics").body.contains("tollgated_config_last_reload_ok 0"));
    QCOMPARE(currentLimit(service), 1'000);
    // Fixed: in force again, and said so.
    QVERIFY(writeFile(m_config, configText(2'000)));
    service.hangUp();
    QTRY_COMPARE_WITH_TIMEOUT(currentLimit(service), 2'000, 5000);
    QVERIFY(service.curl("GET", "/metrics").body.contains("tollgated_config_last_reload_ok 1"));
    QVERIFY(!service.curl("GET", "/readyz").body.contains("failed"));
}

void ServiceResilienceTest::redisKilledMidStream()
{
    ServiceProcess reporting, allowing;
    QVERIFY2(reporting.start(m_core.server().url(), m_config), qPrintable(reporting.errorString()));
    QVERIFY2(allowing.start(m_core.server().url(), m_config, {QStringLiteral("--on-error"), QStringLiteral("allow")}),
             qPrintable(allowing.errorString()));
    QVERIFY(reporting.waitForLog("unchanged") && allowing.waitForLog("unchanged"));
    auto reportingLoad = startLoad(reporting, 4, 2);
    auto allowingLoad = startLoad(allowing, 4, 2);
    // A health watcher, as a load balancer keeps one: SERVING now, NOT_SERVING once Redis goes.
    auto watcher = startClient(reporting, {QStringLiteral("watch"), QStringLiteral("2")});
    QTRY_VERIFY_WITH_TIMEOUT(watcher->canReadLine(), 10000);
    QCOMPARE(watcher->readLine().trimmed(), QByteArray(R"({"status": "SERVING"})"));
    QTest::qWait(1000);
    m_core.server().kill();
    QTRY_COMPARE_WITH_TIMEOUT(reporting.curl("GET", "/readyz").status, 503, 5000);
    QVERIFY(reporting.curl("GET", "/readyz").body.startsWith("not ready: Redis"));
    const auto healthOf = [&reporting] {
        const PythonRun health = runRlsClient({reporting.grpcTarget(), QStringLiteral("health")});
        return QJsonDocument::fromJson(health.lines.value(0)).object().value(QStringLiteral("status")).toString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(healthOf(), QStringLiteral("NOT_SERVING"), 3000);
    QTRY_VERIFY_WITH_TIMEOUT(watcher->canReadLine(), 3000);
    QCOMPARE(watcher->readLine().trimmed(), QByteArray(R"({"status": "NOT_SERVING"})"));
    QVERIFY(watcher->state() == QProcess::NotRunning || watcher->waitForFinished(5000));
    QCOMPARE(allowing.curl("GET", "/readyz").status, 200); // its failure policy decides

    const QJsonObject withoutPolicy = finish(*reportingLoad);
    const QJsonObject withPolicy = finish(*allowingLoad);
    qInfo("without a failure policy: %s", QJsonDocument(withoutPolicy).toJson(QJsonDocument::Compact).constData());
    qInfo("with --on-error allow: %s", QJsonDocument(withPolicy).toJson(QJsonDocument::Compact).constData());
    // Without a failure policy the caller hears that Redis is away (Envoy then applies its own
    // failure_mode_deny); with one, every request is answered, and fast.
    QVERIFY2(withoutPolicy.value(QStringLiteral("errors")).toObject().value(QStringLiteral("UNAVAILABLE")).toInt() > 0,
             QJsonDocument(withoutPolicy).toJson().constData());
    QVERIFY2(withPolicy.value(QStringLiteral("errors")).toObject().isEmpty(), QJsonDocument(withPolicy).toJson().constData());
    QVERIFY2(withPolicy.value(QStringLiteral("p99_ms")).toDouble() < 1000, QJsonDocument(withPolicy).toJson().constData());

    QVERIFY(m_core.restartAndFlush());
    QTRY_COMPARE_WITH_TIMEOUT(reporting.curl("GET", "/readyz").status, 200, 10000);
    const PythonRun back = runRlsClient({reporting.grpcTarget(), QStringLiteral("decide")}, kRequest + '\n');
    QVERIFY2(back.lines.value(0).contains("\"overall_code\": \"OK\""), back.lines.value(0).constData());
}

QTEST_GUILESS_MAIN(ServiceResilienceTest)
#include "tst_ServiceResilience.moc"
