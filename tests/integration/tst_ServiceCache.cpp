// The refused-subject cache across two real tollgated instances on one redis-server: a refusal
// is answered from memory on each, and an unban, a reset or an override made elsewhere (here by
// the library, as the console or tollgatectl make them) reaches both through the events channel
// within a second. Cached refusals still count in the console's statistics.
#include "core/registry/ServiceRegistry.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"
#include "tollgate/Refunds.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

class ServiceCacheTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void bothInstancesAreRegistered();
    void refusalsComeFromMemoryOnBoth();
    void unbanReachesBothWithinASecond();
    void resetReachesBothWithinASecond();
    void overrideReachesBothWithinASecond();
    void refundReachesBothWithinASecond();
    void policyLooseningReachesBothWithinASecond();
    void cachedRefusalsCountInTheStatistics();

private:
    // POST /v1/hit on `service`: the JSON reply.
    QJsonObject hit(ServiceProcess& service, const QByteArray& action, const QByteArray& user);
    // Refuses `user` on both instances until both answer from memory.
    void refuseOnBoth(const QByteArray& action, const QByteArray& user);
    // How long until both instances allow `user` again (ms), polling every 20 ms; -1 after 5 s.
    qint64 untilBothAllow(const QByteArray& action, const QByteArray& user);

    CoreFixture m_core;
    ServiceProcess m_first;
    ServiceProcess m_second;
};

void ServiceCacheTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    const QString config = sourcePath(QStringLiteral("tests/data/service_edge.yaml"));
    QVERIFY2(m_first.start(m_core.server().url(), config), qPrintable(m_first.errorString()));
    QVERIFY2(m_first.waitForLog("unchanged"), m_first.stderrText().constData());
    QVERIFY2(m_second.start(m_core.server().url(), config), qPrintable(m_second.errorString()));
    QVERIFY2(m_second.waitForLog("unchanged"), m_second.stderrText().constData());
}

QJsonObject ServiceCacheTest::hit(ServiceProcess& service, const QByteArray& action,
                                  const QByteArray& user)
{
    const QByteArray body = QJsonDocument(QJsonObject{{QStringLiteral("action"), QString::fromUtf8(action)},
                                                      {QStringLiteral("user"), QString::fromUtf8(user)}})
                                .toJson(QJsonDocument::Compact);
    return QJsonDocument::fromJson(service.curl("POST", "/v1/hit", body).body).object();
}

void ServiceCacheTest::refuseOnBoth(const QByteArray& action, const QByteArray& user)
{
    for (ServiceProcess* service : {&m_first, &m_second}) {
        QJsonObject answer;
        for (int i = 0; i < 5 && answer.value(QStringLiteral("decided_by")).toString() != QLatin1String("cache"); ++i)
            answer = hit(*service, action, user);
        QCOMPARE(answer.value(QStringLiteral("allowed")).toBool(), false);
        QCOMPARE(answer.value(QStringLiteral("decided_by")).toString(), QStringLiteral("cache"));
    }
}

qint64 ServiceCacheTest::untilBothAllow(const QByteArray& action, const QByteArray& user)
{
    QElapsedTimer clock;
    clock.start();
    bool first = false, second = false;
    while (clock.elapsed() < 5000) {
        first = first || hit(m_first, action, user).value(QStringLiteral("allowed")).toBool();
        second = second || hit(m_second, action, user).value(QStringLiteral("allowed")).toBool();
        if (first && second)
            return clock.elapsed();
        QTest::qWait(20);
    }
    return -1;
}

void ServiceCacheTest::bothInstancesAreRegistered()
{
    // What the console's Services page and `tollgatectl services` read.
    const ServiceRegistry registry(m_core.client(), m_core.schema());
    QList<quint16> ports;
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                 auto list = await<ServiceList>([&](QObject* context, Callback<ServiceList> done) {
                                     registry.list(context, done);
                                 });
                                 ports.clear();
                                 for (const ServiceInstance& each : list ? list->instances : std::vector<ServiceInstance>{})
                                     if (each.ready)
                                         ports << quint16(each.grpcAddress.section(QLatin1Char(':'), -1).toUInt());
                                 return ports.size() == 2;
                             }()),
                             10000);
    QVERIFY(ports.contains(m_first.grpcPort()) && ports.contains(m_second.grpcPort()));
    auto list = await<ServiceList>([&](QObject* context, Callback<ServiceList> done) { registry.list(context, done); });
    QVERIFY(list);
    for (const ServiceInstance& each : list->instances) {
        QCOMPARE(each.configDigest.size(), 12);
        QVERIFY(each.configFile.endsWith(QStringLiteral("service_edge.yaml")));
        QVERIFY(!each.isStale(list->serverNowMs));
        QVERIFY(each.httpAddress.startsWith(QStringLiteral("127.0.0.1:")));
    }
    // A third that stops leaves the registry at once.
    ServiceProcess third;
    QVERIFY2(third.start(m_core.server().url(), sourcePath(QStringLiteral("tests/data/service_edge.yaml"))),
             qPrintable(third.errorString()));
    const auto count = [&] {
        auto now = await<ServiceList>([&](QObject* context, Callback<ServiceList> done) { registry.list(context, done); });
        return now ? int(now->instances.size()) : -1;
    };
    QTRY_COMPARE_WITH_TIMEOUT(count(), 3, 10000);
    QVERIFY2(third.stop(), third.stderrText().right(3000).constData());
    QCOMPARE(count(), 2);
}

void ServiceCacheTest::refusalsComeFromMemoryOnBoth()
{
    const QByteArray action = "edge.generic_key_login.user_id";
    refuseOnBoth(action, "dora");
    // The ban is hit.lua's own (the policy bans 10 minutes): until it ends, no round trip.
    const QJsonObject again = hit(m_first, action, "dora");
    QCOMPARE(again.value(QStringLiteral("tier")).toString(), QStringLiteral("banned"));
    QVERIFY(again.value(QStringLiteral("retry_after_ms")).toInteger() > 9 * 60 * 1000);
    QCOMPARE(again.value(QStringLiteral("message")).toString(), QStringLiteral("too many logins"));
}

void ServiceCacheTest::unbanReachesBothWithinASecond()
{
    const QByteArray action = "edge.generic_key_login.user_id";
    refuseOnBoth(action, "emil");
    auto removed = await<qint64>([&](QObject* context, Callback<qint64> done) {
        m_core.moderation().unban("emil", action, QStringLiteral("support"), QStringLiteral("verified"),
                                  context, done);
    });
    QVERIFY(removed && *removed == 1);
    // The counters are still over the limit: reset them too, as support does with an unban.
    auto reset = await<qint64>([&](QObject* context, Callback<qint64> done) {
        m_core.moderation().reset("emil", action, QStringLiteral("support"), QStringLiteral("verified"),
                                  context, done);
    });
    QVERIFY(reset);
    const qint64 took = untilBothAllow(action, "emil");
    qInfo("unban and reset seen by both instances after %lld ms", took);
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
}

void ServiceCacheTest::resetReachesBothWithinASecond()
{
    const QByteArray action = "edge.algo_fixed_window.user";
    refuseOnBoth(action, "finn");
    auto reset = await<qint64>([&](QObject* context, Callback<qint64> done) {
        m_core.moderation().reset("finn", action, QStringLiteral("support"), QStringLiteral("test"),
                                  context, done);
    });
    QVERIFY(reset);
    const qint64 took = untilBothAllow(action, "finn");
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
}

void ServiceCacheTest::overrideReachesBothWithinASecond()
{
    const QByteArray action = "edge.algo_fixed_window.user";
    refuseOnBoth(action, "gus");
    OverrideRequest request;
    request.user = "gus";
    request.action = action;
    request.kind = OverrideKind::Unlimited;
    request.durationMs = 3'600'000;
    request.actor = QStringLiteral("support");
    request.reason = QStringLiteral("customer on a trial");
    QVERIFY(m_core.setOverride(request));
    const qint64 took = untilBothAllow(action, "gus");
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
}

void ServiceCacheTest::refundReachesBothWithinASecond()
{
    const QByteArray action = "edge.algo_fixed_window.user";
    refuseOnBoth(action, "ivy");
    auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get(action, context, done);
    });
    QVERIFY(policy);
    const Refunds refunds(m_core.client(), m_core.schema());
    auto given = await<RefundResult>([&](QObject* context, Callback<RefundResult> done) {
        // Refused hits count too (a translated fixed window counts denied hits, as
        // envoyproxy/ratelimit does): give back all of them, leaving room on each.
        refunds.refund(*policy, "ivy", 1000, context, done);
    });
    QVERIFY(given && given->changed);
    const qint64 took = untilBothAllow(action, "ivy");
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
}

void ServiceCacheTest::policyLooseningReachesBothWithinASecond()
{
    // Edited in the console (any PolicyStore save): every instance decides with it at once.
    const QByteArray action = "edge.algo_sliding_log.user";
    refuseOnBoth(action, "jo");
    auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get(action, context, done);
    });
    QVERIFY(policy);
    policy->windows = {{100, 60'000}};
    QVERIFY(m_core.save(*policy, QStringLiteral("operator")));
    const qint64 took = untilBothAllow(action, "jo");
    QVERIFY2(took >= 0 && took < 1000, qPrintable(QString::number(took)));
}

void ServiceCacheTest::cachedRefusalsCountInTheStatistics()
{
    const QByteArray action = "edge.algo_sliding_window.user";
    const QByteArray stats = m_core.schema().statsKey(action);
    const auto denied = [&] { return m_core.bytes({"HGET", stats, "total:d"}).toLongLong(); };
    for (int i = 0; i < 2; ++i)
        hit(m_first, action, "hana");
    const qint64 before = denied();
    int fromMemory = 0;
    for (int i = 0; i < 10; ++i)
        fromMemory += hit(m_first, action, "hana").value(QStringLiteral("decided_by")).toString() ==
                      QLatin1String("cache");
    QVERIFY(fromMemory >= 9);
    // Statistics are written at most once a second.
    QTRY_COMPARE_WITH_TIMEOUT(denied(), before + 10, 5000);
}

QTEST_GUILESS_MAIN(ServiceCacheTest)
#include "tst_ServiceCache.moc"
