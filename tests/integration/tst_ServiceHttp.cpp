// tollgated's HTTP endpoint through curl, against a real redis-server: /v1/decide answers as
// gRPC does, /v1/hit answers hit.lua's reply with the RateLimit header fields, the health and
// readiness checks, /metrics (the service's families and the exporter's), bad bodies, and
// connections served on several threads at once.
#include "tests/support/CoreFixture.h"
#include "tests/support/RawHttp.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

class ServiceHttpTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void decideAnswersAsGrpcDoes();
    void hitAnswersTheScriptsReply();
    void healthAndReadiness();
    void metricsHoldBothFamilies();
    void badBodiesAreRefusedClearly();
    void connectionsOnSeveralThreadsAnswerInOrder();

private:
    CoreFixture m_core;
    ServiceProcess m_service;
};

void ServiceHttpTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    // Three HTTP threads, whatever the machine: connections are spread over them.
    QVERIFY2(m_service.start(m_core.server().url(), sourcePath(QStringLiteral("tests/data/service_edge.yaml")),
                             {QStringLiteral("--http-threads"), QStringLiteral("3")}),
             qPrintable(m_service.errorString()));
    QVERIFY2(m_service.waitForLog("unchanged"), m_service.stderrText().constData());
}

static QJsonObject json(const ServiceProcess::Http& http)
{
    return QJsonDocument::fromJson(http.body).object();
}

static QByteArray header(const ServiceProcess::Http& http, const QByteArray& name)
{
    for (const QByteArray& line : http.headers.split('\n')) {
        if (line.toLower().startsWith(QByteArray(name.toLower() + ':')))
            return line.mid(name.size() + 1).trimmed();
    }
    return {};
}

void ServiceHttpTest::decideAnswersAsGrpcDoes()
{
    const QByteArray body = R"({"domain":"edge","descriptors":[{"entries":[{"key":"remote_address","value":"192.0.2.1"}]}]})";
    for (int i = 0; i < 3; ++i) {
        const auto http = m_service.curl("POST", "/v1/decide", body);
        QCOMPARE(http.status, 200);
        QCOMPARE(json(http).value(QStringLiteral("overall_code")).toString(), QStringLiteral("OK"));
    }
    const auto refused = m_service.curl("POST", "/v1/decide", body);
    QCOMPARE(refused.status, 200); // the decision is the body's; the call itself succeeded
    const QJsonObject answer = json(refused);
    QCOMPARE(answer.value(QStringLiteral("overall_code")).toString(), QStringLiteral("OVER_LIMIT"));
    const QJsonObject status = answer.value(QStringLiteral("statuses")).toArray().at(0).toObject();
    QCOMPARE(status.value(QStringLiteral("code")).toString(), QStringLiteral("OVER_LIMIT"));
    QCOMPARE(status.value(QStringLiteral("current_limit")).toObject().value(QStringLiteral("requests_per_unit")).toInt(), 3);
    QCOMPARE(status.value(QStringLiteral("action")).toString(), QStringLiteral("edge.remote_address"));
    QCOMPARE(status.value(QStringLiteral("user")).toString(), QStringLiteral("192.0.2.1"));
    QVERIFY2(!header(refused, "Retry-After").isEmpty(), refused.headers.constData());
    QVERIFY2(header(refused, "RateLimit").startsWith("\"edge.remote_address-1m\";r=0"), refused.headers.constData());
}

void ServiceHttpTest::hitAnswersTheScriptsReply()
{
    const QByteArray body = R"({"action":"edge.algo_fixed_window.user","user":"carla"})";
    const auto first = m_service.curl("POST", "/v1/hit", body);
    QCOMPARE(first.status, 200);
    QCOMPARE(json(first).value(QStringLiteral("allowed")).toBool(), true);
    QCOMPARE(json(first).value(QStringLiteral("remaining")).toInt(), 1);
    QCOMPARE(header(first, "RateLimit-Policy"), QByteArray("\"edge.algo_fixed_window.user-1m\";q=2;w=60"));
    QCOMPARE(m_service.curl("POST", "/v1/hit", body).status, 200);
    const auto denied = m_service.curl("POST", "/v1/hit", body);
    QCOMPARE(denied.status, 429);
    QCOMPARE(json(denied).value(QStringLiteral("tier")).toString(), QStringLiteral("deny"));
    QVERIFY(json(denied).value(QStringLiteral("retry_after_ms")).toInt() > 0);
    QVERIFY2(!header(denied, "Retry-After").isEmpty(), denied.headers.constData());
    // The same refusal again comes from memory until it ends, with the same answer.
    const auto again = m_service.curl("POST", "/v1/hit", body);
    QCOMPARE(again.status, 429);
    QCOMPARE(json(again).value(QStringLiteral("decided_by")).toString(), QStringLiteral("cache"));
    QCOMPARE(json(again).value(QStringLiteral("count")).toInt(), 3); // the refused hit counted too

    const auto unknown = m_service.curl("POST", "/v1/hit", R"({"action":"no-such","user":"x"})");
    QCOMPARE(unknown.status, 404);
    QVERIFY(json(unknown).value(QStringLiteral("error")).toString().contains(QStringLiteral("no-such")));
}

void ServiceHttpTest::healthAndReadiness()
{
    const auto health = m_service.curl("GET", "/healthz");
    QCOMPARE(health.status, 200);
    const auto ready = m_service.curl("GET", "/readyz");
    QCOMPARE(ready.status, 200);
    QVERIFY2(ready.body.startsWith("ready\n") && ready.body.contains("config: "), ready.body.constData());
}

void ServiceHttpTest::metricsHoldBothFamilies()
{
    m_service.curl("POST", "/v1/decide", R"({"domain":"edge","descriptors":[{"entries":[{"key":"nothing","value":"x"}]}]})");
    const auto metrics = m_service.curl("GET", "/metrics");
    QCOMPARE(metrics.status, 200);
    for (const char* family :
         {"tollgated_requests_total{domain=\"edge\",code=\"over_limit\",transport=\"http\"}",
          "tollgated_unmatched_descriptors_total{domain=\"edge\"} 1",
          "tollgated_descriptor_decisions_total{domain=\"edge\",descriptor=\"edge.remote_address\",code=\"over_limit\"} 1",
          "tollgated_decision_seconds_bucket{le=\"+Inf\"}",
          "tollgated_redis_round_trips_total", "tollgated_refusal_cache_hits_total 1",
          "tollgated_refusal_cache_entries", "tollgated_config_last_reload_ok 1", "tollgated_ready 1",
          // the exporter's, read from Redis: the policies the configuration wrote
          "tollgate_policy_limit{action=\"edge.remote_address\""})
        QVERIFY2(metrics.body.contains(family), family);
    // Prometheus' own parser accepts it where promtool is installed (the exporter's tests run it).
    const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    if (!promtool.isEmpty()) {
        QProcess check;
        check.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
        check.write(metrics.body);
        check.closeWriteChannel();
        QVERIFY(check.waitForFinished(30000));
        const QByteArray said = check.readAllStandardOutput() + check.readAllStandardError();
        // promtool's lint also flags style (e.g. counters without _total on info families);
        // what matters here is that it parses.
        QVERIFY2(!said.contains("error while linting") && !said.contains("text format parsing error"),
                 said.constData());
    }
}

void ServiceHttpTest::badBodiesAreRefusedClearly()
{
    const auto notJson = m_service.curl("POST", "/v1/decide", "{not json");
    QCOMPARE(notJson.status, 400);
    QVERIFY(json(notJson).value(QStringLiteral("error")).toString().contains(QStringLiteral("not a JSON object")));
    const auto noDescriptors = m_service.curl("POST", "/v1/decide", R"({"domain":"edge","descriptors":[]})");
    QCOMPARE(noDescriptors.status, 400);
    const auto hugeAddend = m_service.curl(
        "POST", "/v1/decide",
        R"({"domain":"edge","hits_addend":4294967295,"descriptors":[{"entries":[{"key":"remote_address","value":"192.0.2.9"}]}]})");
    QCOMPARE(hugeAddend.status, 200); // refused (OVER_LIMIT), not an error
    QCOMPARE(json(hugeAddend).value(QStringLiteral("overall_code")).toString(), QStringLiteral("OVER_LIMIT"));
    QByteArray badUtf8 = R"({"domain":"edge","descriptors":[{"entries":[{"key":"remote_address","value":"X"}]}]})";
    badUtf8.replace("\"X\"", "\"\xff\xfe\"");
    const auto invalid = m_service.curl("POST", "/v1/decide", badUtf8);
    QVERIFY2(invalid.status == 400 || invalid.status == 200, invalid.body.constData());
    const auto badHit = m_service.curl("POST", "/v1/hit", R"({"action":"edge.remote_address","user":"u","cost":-3})");
    QCOMPARE(badHit.status, 400);
    // Nothing of that stopped the service.
    QCOMPARE(m_service.curl("GET", "/healthz").status, 200);
}

void ServiceHttpTest::connectionsOnSeveralThreadsAnswerInOrder()
{
    // Six connections (two on each thread), each sending four decisions for a subject of its
    // own at once (3 a minute): each gets OK, OK, OK, then OVER_LIMIT, in that order.
    std::vector<std::unique_ptr<QTcpSocket>> sockets;
    for (int c = 0; c < 6; ++c) {
        sockets.push_back(std::make_unique<QTcpSocket>());
        sockets.back()->connectToHost(QStringLiteral("127.0.0.1"), m_service.httpPort());
        QVERIFY(sockets.back()->waitForConnected(5000));
    }
    for (int c = 0; c < 6; ++c) {
        const QByteArray request = decideRequest("198.51.100." + QByteArray::number(c));
        sockets[size_t(c)]->write(request + request + request + request);
    }
    for (int c = 0; c < 6; ++c) {
        const QList<QByteArray> answers = readAnswers(*sockets[size_t(c)], 4, 10000);
        QCOMPARE(answers.size(), 4);
        for (int i = 0; i < 4; ++i)
            QVERIFY2(answers[i].contains(i < 3 ? R"("overall_code":"OK")" : R"("overall_code":"OVER_LIMIT")"),
                     answers[i].constData());
    }
    // The paths that read the daemon's state answer from any connection too.
    QCOMPARE(m_service.curl("GET", "/readyz").status, 200);
}

QTEST_GUILESS_MAIN(ServiceHttpTest)
#include "tst_ServiceHttp.moc"
