// tollgated through a real nutcracker (Twemproxy 0.5) over two private redis-servers, with a
// redis+twemproxy:// URL naming the backends: gRPC and HTTP decisions through the proxy, the
// registry and /metrics, and the refusal cache fed by each backend's events channel (an unban
// made with tollgatectl through the proxy lifts a refusal cached from a ban, whichever backend
// holds the user).
#include "tests/support/CliRunner.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"
#include "tests/support/Twemproxy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace tollgate::test;

class ServiceTwemproxyTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void grpcDecisionsThroughTheProxy();
    void httpDecisionsThroughTheProxy();
    void registeredAndScrapedThroughThePool();
    void unbanLiftsACachedRefusalOnEachBackend();

private:
    QJsonObject hit(const QByteArray& action, const QByteArray& user);
    CliRun ctl(const QStringList& args);
    // The backend holding the user's keys (their hash tag), -1 when none does.
    int backendOf(const QByteArray& user);

    Twemproxy m_pool;
    ServiceProcess m_service;
    QString m_url;
};

void ServiceTwemproxyTest::initTestCase()
{
    QVERIFY2(m_pool.start(), qPrintable(m_pool.errorString()));
    m_url = QStringLiteral("redis+twemproxy://") + m_pool.address() + QStringLiteral("?backends=") +
            m_pool.backendList();
    QVERIFY2(m_service.start(m_url, sourcePath(QStringLiteral("tests/data/service_edge.yaml"))),
             qPrintable(m_service.errorString()));
    // The configuration's policies are written through the proxy before the first decision.
    QVERIFY2(m_service.waitForLog("unchanged"), m_service.stderrText().constData());
}

QJsonObject ServiceTwemproxyTest::hit(const QByteArray& action, const QByteArray& user)
{
    const QByteArray body =
        QJsonDocument(QJsonObject{{QStringLiteral("action"), QString::fromUtf8(action)},
                                  {QStringLiteral("user"), QString::fromUtf8(user)}})
            .toJson(QJsonDocument::Compact);
    return QJsonDocument::fromJson(m_service.curl("POST", "/v1/hit", body).body).object();
}

CliRun ServiceTwemproxyTest::ctl(const QStringList& args)
{
    return runCli(tollgatectlPath(), m_url, args);
}

int ServiceTwemproxyTest::backendOf(const QByteArray& user)
{
    for (int i = 0; i < m_pool.backendCount(); ++i) {
        const auto keys = m_pool.keysOn(i, "tg:{" + user + "}:*");
        if (keys && !keys->isEmpty())
            return i;
    }
    return -1;
}

void ServiceTwemproxyTest::grpcDecisionsThroughTheProxy()
{
    const QByteArray line =
        R"({"domain":"edge","descriptors":[{"entries":[{"key":"remote_address","value":"10.1.0.1"}]}]})";
    const PythonRun run =
        runRlsClient({m_service.grpcTarget(), QStringLiteral("decide")}, QByteArray(line + '\n').repeated(4));
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(run.lines.size(), 4);
    QStringList codes;
    for (const QByteArray& answer : run.lines)
        codes << QJsonDocument::fromJson(answer)
                     .object()
                     .value(QStringLiteral("response"))
                     .toObject()
                     .value(QStringLiteral("overall_code"))
                     .toString();
    QCOMPARE(codes, (QStringList{QStringLiteral("OK"), QStringLiteral("OK"), QStringLiteral("OK"),
                                 QStringLiteral("OVER_LIMIT")}));
    // Counted in a key of the pool, with its TTL.
    QVERIFY(backendOf("10.1.0.1") >= 0);
    QCOMPARE(m_pool.keysWithoutTtl("tg:{10.1.0.1}:*"), qint64(0));
}

void ServiceTwemproxyTest::httpDecisionsThroughTheProxy()
{
    const QByteArray action = "edge.algo_sliding_window.user";
    QCOMPARE(hit(action, "paula").value(QStringLiteral("allowed")).toBool(false), true);
    QCOMPARE(hit(action, "paula").value(QStringLiteral("allowed")).toBool(false), true);
    const QJsonObject refused = hit(action, "paula");
    QCOMPARE(refused.value(QStringLiteral("allowed")).toBool(true), false);
    QVERIFY(refused.value(QStringLiteral("retry_after_ms")).toInteger() > 0);
}

void ServiceTwemproxyTest::registeredAndScrapedThroughThePool()
{
    QCOMPARE(m_service.curl("GET", "/readyz").status, 200);
    // The console's Services page and `tollgatectl services` read the registry through the proxy.
    const QByteArray port = QByteArray::number(m_service.grpcPort());
    CliRun listed;
    QTRY_VERIFY2_WITH_TIMEOUT((listed = ctl({QStringLiteral("--json"), QStringLiteral("services")}))
                                  .out.contains(QByteArray(":" + port)),
                              qPrintable(listed.describe()), 10000);
    QVERIFY2(!m_service.stderrText().contains("not registered"), m_service.stderrText().constData());
    const ServiceProcess::Http metrics = m_service.curl("GET", "/metrics");
    QCOMPARE(metrics.status, 200);
    QVERIFY2(metrics.body.contains("tollgate_redis_up 1"), metrics.body.left(3000).constData());
}

void ServiceTwemproxyTest::unbanLiftsACachedRefusalOnEachBackend()
{
    // A limit no test reaches: what refuses is the ban alone (refused hits count, and a small
    // calendar-minute limit would go on refusing after the unban).
    const QByteArray action = "edge.bulk";
    // One banned user on each backend: the unban's event is published where the user's keys are.
    QList<QByteArray> banned(m_pool.backendCount());
    for (int n = 0; banned.contains(QByteArray()) && n < 64; ++n) {
        const QByteArray user = "quinn" + QByteArray::number(n);
        const CliRun ban = ctl({QStringLiteral("ban"), QString::fromUtf8(user), QStringLiteral("--action"),
                                QString::fromUtf8(action), QStringLiteral("--for"), QStringLiteral("1h"),
                                QStringLiteral("--reason"), QStringLiteral("test")});
        QVERIFY2(ban.code == 0, qPrintable(ban.describe()));
        const int home = backendOf(user);
        QVERIFY(home >= 0);
        if (banned[home].isEmpty())
            banned[home] = user;
    }
    QVERIFY2(!banned.contains(QByteArray()), "no banned user on some backend");

    for (const QByteArray& user : banned) {
        QJsonObject answer;
        for (int i = 0; i < 5 && answer.value(QStringLiteral("decided_by")).toString() != QLatin1String("cache"); ++i)
            answer = hit(action, user);
        QCOMPARE(answer.value(QStringLiteral("allowed")).toBool(true), false);
        QCOMPARE(answer.value(QStringLiteral("decided_by")).toString(), QStringLiteral("cache"));

        const CliRun unban = ctl({QStringLiteral("unban"), QString::fromUtf8(user),
                                  QStringLiteral("--reason"), QStringLiteral("appeal")});
        QVERIFY2(unban.code == 0, qPrintable(unban.describe()));
        QTRY_VERIFY2_WITH_TIMEOUT(hit(action, user).value(QStringLiteral("allowed")).toBool(false),
                                  qPrintable(QStringLiteral("%1 on backend %2 still refused: %3")
                                                 .arg(QString::fromUtf8(user))
                                                 .arg(banned.indexOf(user))
                                                 .arg(QString::fromUtf8(m_service.stderrText().right(2000)))),
                                  5000);
    }
}

QTEST_GUILESS_MAIN(ServiceTwemproxyTest)
#include "tst_ServiceTwemproxy.moc"
