// tollgated's quota streaming (envoy.service.rate_limit_quota.v3) against a real redis-server,
// with proxies that behave as Envoy's rate_limit_quota filter does (tests/python/rlqs_proxy.py,
// Python's grpcio with stubs generated from proto/): the first report subscribes and gets an
// assignment, usage is counted exactly, exhausted windows and bans are DENY_ALL for their time
// left, exemptions ALLOW_ALL, bans, unbans, overrides and policy changes are pushed within a
// second, idle buckets abandoned, and several proxies share one limit.
#include "tests/support/CoreFixture.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

using namespace tollgate;
using namespace tollgate::test;

namespace {

// One simulated proxy (rlqs_proxy.py interactive), reporting every `interval` seconds.
class Proxy
{
public:
    bool start(const QString& target, const QString& domain, double interval)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PYTHONPATH"), rlsStubDir());
        env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
        m_process.setProcessEnvironment(env);
        m_process.start(QStringLiteral("/usr/bin/python3"),
                        {sourcePath(QStringLiteral("tests/python/rlqs_proxy.py")), target, domain,
                         QStringLiteral("interactive"), QString::number(interval)});
        return m_process.waitForStarted(10000);
    }
    ~Proxy()
    {
        m_process.write("{\"cmd\": \"quit\"}\n");
        if (!m_process.waitForFinished(3000))
            m_process.kill();
        m_process.waitForFinished(3000);
    }
    QJsonObject ask(const QJsonObject& command, int timeoutMs = 20000)
    {
        m_process.write(QJsonDocument(command).toJson(QJsonDocument::Compact) + '\n');
        QDeadlineTimer deadline(timeoutMs);
        while (!m_process.canReadLine() && !deadline.hasExpired())
            m_process.waitForReadyRead(50);
        const QByteArray line = m_process.readLine();
        if (line.isEmpty())
            qWarning("rlqs_proxy.py said nothing: %s", m_process.readAllStandardError().constData());
        return QJsonDocument::fromJson(line).object();
    }
    QJsonObject requests(const QJsonObject& bucket, int n)
    {
        return ask({{QStringLiteral("cmd"), QStringLiteral("requests")},
                    {QStringLiteral("bucket"), bucket},
                    {QStringLiteral("n"), n}});
    }
    // ms until the bucket's assignment is of `kind`; -1 when it is not within `seconds`.
    qint64 wait(const QJsonObject& bucket, const QString& kind, double seconds = 3)
    {
        const QJsonObject answer = ask({{QStringLiteral("cmd"), QStringLiteral("wait")},
                                        {QStringLiteral("bucket"), bucket},
                                        {QStringLiteral("kind"), kind},
                                        {QStringLiteral("timeout"), seconds}});
        if (!answer.contains(QStringLiteral("ms")))
            qWarning("still %s", qPrintable(answer.value(QStringLiteral("kind")).toString()));
        return answer.contains(QStringLiteral("ms")) ? answer.value(QStringLiteral("ms")).toInteger() : -1;
    }
    QJsonObject state(const QJsonObject& bucket)
    {
        return ask({{QStringLiteral("cmd"), QStringLiteral("state")}, {QStringLiteral("bucket"), bucket}});
    }

private:
    QProcess m_process;
};

QJsonObject bucket(const QString& key, const QString& value)
{
    return {{key, value}};
}

Policy smallPolicy(qint64 limit = 5)
{
    Policy policy;
    policy.action = "quota.small";
    policy.windows = {{limit, 3'600'000}};
    return policy;
}

} // namespace

class ServiceQuotaTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void firstReportGetsATokenBucket();
    void usageIsCountedExactly();
    void exhaustedWindowIsDenyAllForItsTimeLeft();
    void banIsPushedAndUnbanPushedBack();
    void banEndIsPushed();
    void overrideIsPushed();
    void policyChangeIsPushed();
    void unlimitedAndUnmatchedAreAllowAll();
    void idleBucketsAreAbandoned();
    void proxiesShareOneLimit();
    void badSectionIsRefusedWithItsLine();

private:
    CoreFixture m_core;
    ServiceProcess m_service;
};

void ServiceQuotaTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    QVERIFY2(m_service.start(m_core.server().url(), sourcePath(QStringLiteral("tests/data/service_quota"))),
             qPrintable(m_service.errorString()));
    QVERIFY2(m_service.waitForLog("policies:"), m_service.stderrText().constData());
    // Generates the stubs from proto/ (rlsStubDir) on its first call.
    const PythonRun health = runRlsClient({m_service.grpcTarget(), QStringLiteral("health")});
    QVERIFY2(health.exitCode == 0, health.err.constData());
}

void ServiceQuotaTest::firstReportGetsATokenBucket()
{
    Proxy proxy;
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota"), 30));
    const QJsonObject acme = bucket(QStringLiteral("tenant"), QStringLiteral("acme"));
    // No assignment yet: the proxy's own behaviour (allow all) until the first one arrives.
    QCOMPARE(proxy.requests(acme, 3).value(QStringLiteral("allowed")).toInt(), 3);
    const qint64 took = proxy.wait(acme, QStringLiteral("TOKEN_BUCKET"));
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
    const QJsonObject state = proxy.state(acme);
    QVERIFY(state.value(QStringLiteral("max_tokens")).toInt() >= 1);
    QVERIFY(state.value(QStringLiteral("fill_interval_ms")).toInt() >= 1000);
    QVERIFY(state.value(QStringLiteral("ttl_ms")).toInt() > 25'000); // the section's 30s
}

void ServiceQuotaTest::usageIsCountedExactly()
{
    Proxy proxy;
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota"), 0.3));
    const QJsonObject counted = bucket(QStringLiteral("small"), QStringLiteral("counted"));
    QCOMPARE(proxy.requests(counted, 1).value(QStringLiteral("allowed")).toInt(), 1);
    QVERIFY(proxy.wait(counted, QStringLiteral("TOKEN_BUCKET")) >= 0);
    QCOMPARE(proxy.requests(counted, 2).value(QStringLiteral("allowed")).toInt(), 1); // one token
    const QByteArray key = m_core.schema().stateKey("counted", "quota.small", Algorithm::FixedWindow, 3'600'000);
    // 2 allowed and 1 refused: a translated limit counts refused requests too, as
    // envoyproxy/ratelimit does (count_denied), so the proxy's refusal is counted as well.
    QTRY_COMPARE_WITH_TIMEOUT(m_core.integer({"GET", key}), 3, 3000);
    const qint64 ttl = m_core.pttl(key);
    QVERIFY2(ttl > 3'500'000 && ttl <= 3'600'000, qPrintable(QString::number(ttl)));
}

void ServiceQuotaTest::exhaustedWindowIsDenyAllForItsTimeLeft()
{
    Proxy proxy;
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota"), 0.3));
    const QJsonObject spent = bucket(QStringLiteral("small"), QStringLiteral("spent"));
    proxy.requests(spent, 1);
    QVERIFY(proxy.wait(spent, QStringLiteral("TOKEN_BUCKET")) >= 0);
    for (int i = 0; i < 4; ++i) // the rest of the window spent over RLS meanwhile
        QVERIFY(m_core.hit(smallPolicy(), "spent"));
    QVERIFY(proxy.wait(spent, QStringLiteral("DENY_ALL")) >= 0);
    const qint64 ttl = proxy.state(spent).value(QStringLiteral("ttl_ms")).toInteger();
    QVERIFY2(ttl > 3'500'000 && ttl <= 3'600'000, qPrintable(QString::number(ttl)));
    QCOMPARE(proxy.requests(spent, 3).value(QStringLiteral("denied")).toInt(), 3);
}

void ServiceQuotaTest::banIsPushedAndUnbanPushedBack()
{
    Proxy proxy; // reports every 30 s: what changes in between is pushed
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota"), 30));
    const QJsonObject rogue = bucket(QStringLiteral("tenant"), QStringLiteral("rogue"));
    proxy.requests(rogue, 1);
    QVERIFY(proxy.wait(rogue, QStringLiteral("TOKEN_BUCKET")) >= 0);
    auto banned = await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
        m_core.moderation().ban({"rogue", "quota.tenant", QStringLiteral("support"),
                                 QStringLiteral("abuse"), 600'000, 0},
                                context, done);
    });
    QVERIFY(banned);
    qint64 took = proxy.wait(rogue, QStringLiteral("DENY_ALL"));
    qInfo("ban pushed after %lld ms", took);
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
    const qint64 ttl = proxy.state(rogue).value(QStringLiteral("ttl_ms")).toInteger();
    QVERIFY2(ttl > 590'000 && ttl <= 600'000, qPrintable(QString::number(ttl))); // the ban's
    auto removed = await<qint64>([&](QObject* context, Callback<qint64> done) {
        m_core.moderation().unban("rogue", "quota.tenant", QStringLiteral("support"),
                                  QStringLiteral("verified"), context, done);
    });
    QVERIFY(removed);
    took = proxy.wait(rogue, QStringLiteral("TOKEN_BUCKET"));
    qInfo("unban pushed after %lld ms", took);
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
}

void ServiceQuotaTest::banEndIsPushed()
{
    Proxy proxy;
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota"), 30));
    const QJsonObject brief = bucket(QStringLiteral("tenant"), QStringLiteral("brief"));
    auto banned = await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
        m_core.moderation().ban({"brief", {}, QStringLiteral("support"), QStringLiteral("cool down"),
                                 1500, 0},
                                context, done);
    });
    QVERIFY(banned);
    proxy.requests(brief, 1);
    QVERIFY(proxy.wait(brief, QStringLiteral("DENY_ALL")) >= 0);
    const qint64 ttl = proxy.state(brief).value(QStringLiteral("ttl_ms")).toInteger();
    QVERIFY2(ttl > 0 && ttl <= 1500, qPrintable(QString::number(ttl)));
    // The ban ends: the server pushes a token bucket without waiting for a report.
    QVERIFY(proxy.wait(brief, QStringLiteral("TOKEN_BUCKET"), 3) >= 0);
}

void ServiceQuotaTest::overrideIsPushed()
{
    Proxy proxy;
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota"), 30));
    const QJsonObject vip = bucket(QStringLiteral("tenant"), QStringLiteral("vip"));
    proxy.requests(vip, 1);
    QVERIFY(proxy.wait(vip, QStringLiteral("TOKEN_BUCKET")) >= 0);
    OverrideRequest request;
    request.user = "vip";
    request.action = "quota.tenant";
    request.kind = OverrideKind::Unlimited;
    request.permanent = true;
    request.actor = QStringLiteral("support");
    request.reason = QStringLiteral("launch day");
    QVERIFY(m_core.setOverride(request));
    const qint64 took = proxy.wait(vip, QStringLiteral("ALLOW_ALL"));
    qInfo("override pushed after %lld ms", took);
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
}

void ServiceQuotaTest::policyChangeIsPushed()
{
    Proxy proxy;
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota"), 30));
    const QJsonObject tight = bucket(QStringLiteral("small"), QStringLiteral("tight"));
    proxy.requests(tight, 1);
    QVERIFY(proxy.wait(tight, QStringLiteral("TOKEN_BUCKET")) >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_core.integer({"GET", m_core.schema().stateKey("tight", "quota.small", Algorithm::FixedWindow, 3'600'000)}), 1, 3000);
    // Edited in the console: one an hour, already spent.
    auto stored = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("quota.small", context, done);
    });
    QVERIFY(stored);
    Policy edited = *stored;
    edited.windows = {{1, 3'600'000}};
    QVERIFY(m_core.save(edited));
    const qint64 took = proxy.wait(tight, QStringLiteral("DENY_ALL"));
    qInfo("policy change pushed after %lld ms", took);
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
}

void ServiceQuotaTest::unlimitedAndUnmatchedAreAllowAll()
{
    Proxy proxy;
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota"), 30));
    for (const QJsonObject& each : {bucket(QStringLiteral("free"), QStringLiteral("x")),
                                    bucket(QStringLiteral("nobody"), QStringLiteral("y"))}) {
        proxy.requests(each, 1);
        QVERIFY(proxy.wait(each, QStringLiteral("ALLOW_ALL")) >= 0);
    }
}

void ServiceQuotaTest::idleBucketsAreAbandoned()
{
    Proxy proxy;
    QVERIFY(proxy.start(m_service.grpcTarget(), QStringLiteral("quota_idle"), 0.5));
    const QJsonObject quiet = bucket(QStringLiteral("tenant"), QStringLiteral("quiet"));
    proxy.requests(quiet, 1);
    QVERIFY(proxy.wait(quiet, QStringLiteral("TOKEN_BUCKET")) >= 0);
    // Reports of nothing for the domain's abandon_after (2 s): the bucket is abandoned.
    const qint64 took = proxy.wait(quiet, QStringLiteral("ABANDONED"), 5);
    QVERIFY2(took >= 1000, qPrintable(QString::number(took)));
    // A new request starts over: a new subscription, a new assignment.
    proxy.requests(quiet, 1);
    QVERIFY(proxy.wait(quiet, QStringLiteral("TOKEN_BUCKET")) >= 0);
}

void ServiceQuotaTest::proxiesShareOneLimit()
{
    // 4 proxies ask 25 requests/s each into one bucket of 300 a minute, reporting every second:
    // every calendar minute they let through stays near the limit (bench/ measures the
    // overshoot at Envoy's 5 s interval; this checks it holds at all).
    QProcess run;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"), rlsStubDir());
    run.setProcessEnvironment(env);
    run.start(QStringLiteral("/usr/bin/python3"),
              {sourcePath(QStringLiteral("tests/python/rlqs_proxy.py")), m_service.grpcTarget(),
               QStringLiteral("quota"), QStringLiteral("share"), QStringLiteral("4"),
               QStringLiteral("25"), QStringLiteral("12"), QStringLiteral("1"),
               QStringLiteral("{\"tenant\": \"shared\"}")});
    QVERIFY(run.waitForFinished(60000));
    const QJsonObject result = QJsonDocument::fromJson(run.readAllStandardOutput()).object();
    QVERIFY2(result.contains(QStringLiteral("allowed_at")), run.readAllStandardError().constData());
    std::map<qint64, int> perMinute;
    for (const QJsonValue& at : result.value(QStringLiteral("allowed_at")).toArray())
        ++perMinute[qint64(at.toDouble()) / 60];
    for (const auto& [minute, allowed] : perMinute) {
        qInfo("minute %lld: %d allowed of 300", minute, allowed);
        QVERIFY2(allowed <= 330, qPrintable(QString::number(allowed)));
    }
}

void ServiceQuotaTest::badSectionIsRefusedWithItsLine()
{
    QTemporaryDir dir;
    QFile file(dir.filePath(QStringLiteral("bad.yaml")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("domain: bad\ndescriptors:\n  - key: tenant\n    rate_limit: {unit: minute, requests_per_unit: 5}\n"
               "rate_limit_quota:\n  abandon_after: 10ms\n");
    file.close();
    QProcess check;
    check.start(tollgatedPath(), {QStringLiteral("check-config"), file.fileName()});
    QVERIFY(check.waitForFinished(15000));
    QCOMPARE(check.exitCode(), 2);
    const QByteArray err = check.readAllStandardError();
    QVERIFY2(err.contains("bad.yaml:6: rate_limit_quota.abandon_after: must be a duration of at least 1s"),
             err.constData());
}

QTEST_GUILESS_MAIN(ServiceQuotaTest)
#include "tst_ServiceQuota.moc"
