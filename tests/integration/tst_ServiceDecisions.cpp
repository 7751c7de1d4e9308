// tollgated's decisions through gRPC, asked by a client that is not ours (Python's grpcio with
// stubs generated from proto/), against a real redis-server (or the three-primary cluster):
// every algorithm, several descriptors, hits_addend, a limit sent with the request, shadow,
// unlimited, replaces, unmatched descriptors, bad requests, and the gRPC health service.
#include "tests/support/CoreFixture.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"
#include "tollgate/PolicyStore.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

namespace {

using Entries = QList<QPair<QString, QString>>;

QJsonObject descriptor(const Entries& entries)
{
    QJsonArray list;
    for (const auto& [key, value] : entries)
        list.append(QJsonObject{{QStringLiteral("key"), key}, {QStringLiteral("value"), value}});
    return {{QStringLiteral("entries"), list}};
}

QByteArray request(const QList<QJsonObject>& descriptors, qint64 hitsAddend = 0,
                   const QString& domain = QStringLiteral("edge"))
{
    QJsonArray list;
    for (const QJsonObject& each : descriptors)
        list.append(each);
    QJsonObject object{{QStringLiteral("domain"), domain}, {QStringLiteral("descriptors"), list}};
    if (hitsAddend)
        object.insert(QStringLiteral("hits_addend"), double(hitsAddend));
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray request(const Entries& entries, qint64 hitsAddend = 0)
{
    return request(QList<QJsonObject>{descriptor(entries)}, hitsAddend);
}

} // namespace

class ServiceDecisionsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void fixedWindowCountsThenRefuses();
    void everyAlgorithm_data();
    void everyAlgorithm();
    void mostRestrictiveDescriptorWins();
    void hitsAddend();
    void limitSentWithTheRequest();
    void shadowCountsWithoutRefusing();
    void unlimitedIsNeverCounted();
    void replacedLimitDoesNotApply();
    void prefixValuesCountApart();
    void unmatchedAndUnknownDomainAreAllowed();
    void badRequestsGetDefinedAnswers();
    void healthService();
    void reflectionListsTheServices();
    void callsAreServedOnThreadsOfItsOwn();

private:
    // The answers to `lines`, one request per line, in order.
    QList<QJsonObject> ask(const QList<QByteArray>& lines);
    QJsonObject askOne(const QByteArray& line) { return ask({line}).value(0); }
    qint64 countOf(const QByteArray& action, const QByteArray& user);

    CoreFixture m_core;
    ServiceProcess m_service;
};

void ServiceDecisionsTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    QVERIFY2(m_service.start(m_core.server().url(), sourcePath(QStringLiteral("tests/data/service_edge.yaml"))),
             qPrintable(m_service.errorString()));
    // The configuration's policies are written to Redis before the first test counts.
    QVERIFY2(m_service.waitForLog("unchanged"), m_service.stderrText().constData());
    QTRY_VERIFY2_WITH_TIMEOUT(countOf("edge.remote_address", "nobody") == 0,
                              m_service.stderrText().constData(), 10000);
}

QList<QJsonObject> ServiceDecisionsTest::ask(const QList<QByteArray>& lines)
{
    const PythonRun run = runRlsClient({m_service.grpcTarget(), QStringLiteral("decide")},
                                       lines.join('\n') + '\n');
    if (run.exitCode != 0)
        qWarning("rls_client.py: %s", run.err.constData());
    QList<QJsonObject> answers;
    for (const QByteArray& line : run.lines)
        answers << QJsonDocument::fromJson(line).object();
    return answers;
}

qint64 ServiceDecisionsTest::countOf(const QByteArray& action, const QByteArray& user)
{
    auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get(action, context, done);
    });
    if (!policy) {
        qWarning("policy %s: %s", action.constData(), qPrintable(policy.error().toString()));
        return -1;
    }
    auto peek = m_core.peek(*policy, user);
    if (!peek)
        qWarning("peek %s: %s", action.constData(), qPrintable(peek.error().toString()));
    return peek ? peek->countNow : -1; // what the window holds before the hit weighed
}

static QJsonObject response(const QJsonObject& answer)
{
    return answer.value(QStringLiteral("response")).toObject();
}

static QJsonObject status(const QJsonObject& answer, int index = 0)
{
    return response(answer).value(QStringLiteral("statuses")).toArray().at(index).toObject();
}

static QString overall(const QJsonObject& answer)
{
    return response(answer).value(QStringLiteral("overall_code")).toString();
}

void ServiceDecisionsTest::fixedWindowCountsThenRefuses()
{
    const QByteArray line = request(Entries{{QStringLiteral("remote_address"), QStringLiteral("10.0.0.1")}});
    const QList<QJsonObject> answers = ask({line, line, line, line});
    QCOMPARE(answers.size(), 4);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(overall(answers[i]), QStringLiteral("OK"));
        QCOMPARE(status(answers[i]).value(QStringLiteral("limit_remaining")).toInt(), 2 - i);
    }
    QCOMPARE(overall(answers[3]), QStringLiteral("OVER_LIMIT"));
    const QJsonObject refused = status(answers[3]);
    QCOMPARE(refused.value(QStringLiteral("code")).toString(), QStringLiteral("OVER_LIMIT"));
    const QJsonObject limit = refused.value(QStringLiteral("current_limit")).toObject();
    QCOMPARE(limit.value(QStringLiteral("requests_per_unit")).toInt(), 3);
    QCOMPARE(limit.value(QStringLiteral("unit")).toString(), QStringLiteral("MINUTE"));
    // A calendar minute: the reset is within it.
    const QString reset = refused.value(QStringLiteral("duration_until_reset")).toString();
    QVERIFY2(reset.endsWith(QLatin1Char('s')) && reset.chopped(1).toDouble() <= 60.0, qPrintable(reset));
    // The RateLimit header fields and Retry-After, for Envoy to add to the response.
    QStringList headers;
    for (const QJsonValue& header : response(answers[3]).value(QStringLiteral("response_headers_to_add")).toArray())
        headers << header.toObject().value(QStringLiteral("key")).toString();
    QVERIFY2(headers.contains(QStringLiteral("RateLimit")) && headers.contains(QStringLiteral("RateLimit-Policy")) &&
                 headers.contains(QStringLiteral("Retry-After")),
             qPrintable(headers.join(QLatin1Char(','))));
    // Counted in Tollgate's own keys: the console sees this subject. The refused hit counts
    // too, as envoyproxy/ratelimit adds every hit to its counter.
    QCOMPARE(countOf("edge.remote_address", "10.0.0.1"), 4);
}

void ServiceDecisionsTest::everyAlgorithm_data()
{
    QTest::addColumn<QString>("algorithm");
    for (const char* name : {"fixed_window", "sliding_window", "sliding_log", "token_bucket"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void ServiceDecisionsTest::everyAlgorithm()
{
    QFETCH(QString, algorithm);
    const QByteArray line = request(Entries{{QStringLiteral("algo"), algorithm},
                                            {QStringLiteral("user"), QStringLiteral("ana")}});
    const QList<QJsonObject> answers = ask({line, line, line});
    QCOMPARE(answers.size(), 3);
    QCOMPARE(overall(answers[0]), QStringLiteral("OK"));
    QCOMPARE(overall(answers[1]), QStringLiteral("OK"));
    QCOMPARE(overall(answers[2]), QStringLiteral("OVER_LIMIT"));
    auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("edge.algo_" + algorithm.toUtf8() + ".user", context, done);
    });
    QVERIFY2(policy, qPrintable(policy ? QString() : policy.error().message));
    QCOMPARE(QString::fromLatin1(algorithmName(policy->algorithm)), algorithm);
}

void ServiceDecisionsTest::mostRestrictiveDescriptorWins()
{
    const QJsonObject address = descriptor({{QStringLiteral("remote_address"), QStringLiteral("10.0.0.2")}});
    const QJsonObject user = descriptor({{QStringLiteral("algo"), QStringLiteral("fixed_window")},
                                         {QStringLiteral("user"), QStringLiteral("bo")}});
    const QList<QJsonObject> answers = ask({request({user}), request({user}), request({address, user})});
    QCOMPARE(answers.size(), 3);
    const QJsonObject both = answers[2];
    QCOMPARE(overall(both), QStringLiteral("OVER_LIMIT"));
    QCOMPARE(status(both, 0).value(QStringLiteral("code")).toString(), QStringLiteral("OK"));
    QCOMPARE(status(both, 1).value(QStringLiteral("code")).toString(), QStringLiteral("OVER_LIMIT"));
}

void ServiceDecisionsTest::hitsAddend()
{
    const Entries address{{QStringLiteral("remote_address"), QStringLiteral("10.0.0.3")}};
    QJsonObject peek = descriptor(address);
    peek.insert(QStringLiteral("hits_addend"), 0); // the descriptor's own: check, count nothing
    QJsonObject three = descriptor(address);
    three.insert(QStringLiteral("hits_addend"), 3);
    const QList<QJsonObject> answers =
        ask({request(address, 2), request({peek}), request(address, 2), request({three}, 1)});
    QCOMPARE(answers.size(), 4);
    QCOMPARE(status(answers[0]).value(QStringLiteral("limit_remaining")).toInt(), 1);
    QCOMPARE(overall(answers[1]), QStringLiteral("OK"));
    QCOMPARE(overall(answers[2]), QStringLiteral("OVER_LIMIT")); // 2 + 2 > 3
    QCOMPARE(overall(answers[3]), QStringLiteral("OVER_LIMIT")); // the descriptor's 3 wins over 1
    // The peek counted nothing; the refused cost of 2 counted (as envoyproxy/ratelimit counts
    // every hit), and the last refusal came from memory (the window's refusal holds).
    QCOMPARE(countOf("edge.remote_address", "10.0.0.3"), 4);
}

void ServiceDecisionsTest::limitSentWithTheRequest()
{
    QJsonObject own = descriptor({{QStringLiteral("remote_address"), QStringLiteral("10.0.0.4")}});
    own.insert(QStringLiteral("limit"),
               QJsonObject{{QStringLiteral("requests_per_unit"), 1}, {QStringLiteral("unit"), QStringLiteral("HOUR")}});
    const QList<QJsonObject> answers = ask({request({own}), request({own})});
    QCOMPARE(answers.size(), 2);
    QCOMPARE(overall(answers[0]), QStringLiteral("OK"));
    QCOMPARE(overall(answers[1]), QStringLiteral("OVER_LIMIT"));
    const QJsonObject limit = status(answers[1]).value(QStringLiteral("current_limit")).toObject();
    QCOMPARE(limit.value(QStringLiteral("requests_per_unit")).toInt(), 1);
    QCOMPARE(limit.value(QStringLiteral("unit")).toString(), QStringLiteral("HOUR"));
    // Counted apart from the configured limit of the same descriptor.
    QCOMPARE(countOf("edge.remote_address", "10.0.0.4"), 0);
}

void ServiceDecisionsTest::shadowCountsWithoutRefusing()
{
    const QByteArray line = request(Entries{{QStringLiteral("shadow_key"), QStringLiteral("s1")}});
    const QList<QJsonObject> answers = ask({line, line, line});
    QCOMPARE(answers.size(), 3);
    for (const QJsonObject& answer : answers)
        QCOMPARE(overall(answer), QStringLiteral("OK"));
    // Decided in Redis as enforcing would, every hit counted (envoyproxy/ratelimit counts
    // refused hits too).
    QCOMPARE(countOf("edge.shadow_key", "s1"), 3);
    auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("edge.shadow_key", context, done);
    });
    QVERIFY(policy && policy->shadow);
}

void ServiceDecisionsTest::unlimitedIsNeverCounted()
{
    // tollgated's own count of hit.lua calls (statistics writes aside, which other tests' hits
    // cause at any moment).
    const auto roundTrips = [this] {
        const QByteArray metrics = m_service.curl("GET", "/metrics").body;
        const qsizetype at = metrics.indexOf("\ntollgated_redis_round_trips_total ");
        return at < 0 ? QByteArray() : metrics.mid(at + 1, metrics.indexOf('\n', at + 1) - at - 1);
    };
    const QByteArray before = roundTrips();
    QVERIFY(!before.isEmpty());
    const QByteArray line = request(Entries{{QStringLiteral("path"), QStringLiteral("/health")}});
    const QList<QJsonObject> answers = ask(QList<QByteArray>(20, line));
    QCOMPARE(answers.size(), 20);
    for (const QJsonObject& answer : answers)
        QCOMPARE(overall(answer), QStringLiteral("OK"));
    QCOMPARE(roundTrips(), before); // Redis was not asked
}

void ServiceDecisionsTest::replacedLimitDoesNotApply()
{
    const QJsonObject free = descriptor({{QStringLiteral("tier"), QStringLiteral("free")}});
    const QJsonObject gold = descriptor({{QStringLiteral("tier"), QStringLiteral("gold")}});
    const QList<QJsonObject> both = ask(QList<QByteArray>(3, request({free, gold})));
    QCOMPARE(both.size(), 3);
    for (const QJsonObject& answer : both)
        QCOMPARE(overall(answer), QStringLiteral("OK")); // gold stands in for free's 2 a minute
    QVERIFY(!status(both[2], 0).contains(QStringLiteral("current_limit")) ||
            status(both[2], 0).value(QStringLiteral("current_limit")).toObject().isEmpty());
    const QList<QJsonObject> alone = ask(QList<QByteArray>(3, request({free})));
    QCOMPARE(overall(alone[2]), QStringLiteral("OVER_LIMIT"));
}

void ServiceDecisionsTest::prefixValuesCountApart()
{
    const QByteArray a = request(Entries{{QStringLiteral("client"), QStringLiteral("api_alpha")}});
    const QByteArray b = request(Entries{{QStringLiteral("client"), QStringLiteral("api_beta")}});
    const QByteArray other = request(Entries{{QStringLiteral("client"), QStringLiteral("web")}});
    const QList<QJsonObject> answers = ask({a, b, a, other, other});
    QCOMPARE(answers.size(), 5);
    QCOMPARE(overall(answers[0]), QStringLiteral("OK"));
    QCOMPARE(overall(answers[1]), QStringLiteral("OK")); // another value: its own counter
    QCOMPARE(overall(answers[2]), QStringLiteral("OVER_LIMIT"));
    QCOMPARE(overall(answers[4]), QStringLiteral("OK")); // no rule for "web"
    // detailed_metric: each value named in the metrics, as envoyproxy/ratelimit does.
    const QByteArray metrics = m_service.curl("GET", "/metrics").body;
    QVERIFY2(metrics.contains("tollgated_descriptor_decisions_total{domain=\"edge\",descriptor=\"edge.client_api_alpha\",code=\"over_limit\"} 1"),
             metrics.constData());
}

void ServiceDecisionsTest::unmatchedAndUnknownDomainAreAllowed()
{
    const QList<QJsonObject> answers =
        ask({request(Entries{{QStringLiteral("nothing"), QStringLiteral("here")}}),
             request({descriptor({{QStringLiteral("remote_address"), QStringLiteral("1.1.1.1")}})}, 0,
                     QStringLiteral("no-such-domain"))});
    QCOMPARE(answers.size(), 2);
    for (const QJsonObject& answer : answers) {
        QCOMPARE(overall(answer), QStringLiteral("OK"));
        QCOMPARE(status(answer).value(QStringLiteral("code")).toString(), QStringLiteral("OK"));
    }
}

void ServiceDecisionsTest::badRequestsGetDefinedAnswers()
{
    const QJsonObject address = descriptor({{QStringLiteral("remote_address"), QStringLiteral("10.0.0.5")}});
    const QByteArray huge = request(Entries{{QStringLiteral("remote_address"), QString(1 << 20, QLatin1Char('x'))}});
    const QList<QJsonObject> answers = ask({request({address}, 0, QString()), request(QList<QJsonObject>{}),
                                            request({address}, 4294967295LL), huge, huge,
                                            request({address})});
    QCOMPARE(answers.size(), 6);
    QCOMPARE(answers[0].value(QStringLiteral("error")).toString(), QStringLiteral("INVALID_ARGUMENT"));
    QCOMPARE(answers[1].value(QStringLiteral("error")).toString(), QStringLiteral("INVALID_ARGUMENT"));
    // A cost above any limit is refused, never an error a proxy would turn into "allow".
    QCOMPARE(overall(answers[2]), QStringLiteral("OVER_LIMIT"));
    // A 1 MB value is still a subject: counted under its SHA-256.
    QCOMPARE(overall(answers[3]), QStringLiteral("OK"));
    QCOMPARE(status(answers[4]).value(QStringLiteral("limit_remaining")).toInt(), 1);
    QCOMPARE(overall(answers[5]), QStringLiteral("OK")); // and the service still answers

    const PythonRun invalid = runRlsClient({m_service.grpcTarget(), QStringLiteral("invalid-utf8")});
    QCOMPARE(invalid.lines.size(), 1);
    const QJsonObject answer = QJsonDocument::fromJson(invalid.lines[0]).object();
    // A value that is not UTF-8 (a header may hold any byte) is decided and counted like any
    // other: refused as a malformed string, it would be let through by the proxy's failure mode.
    QCOMPARE(overall(answer), QStringLiteral("OK"));
    QCOMPARE(countOf("edge.remote_address", "\xff\xfe\xc3(bad-utf"), 1);
    QCOMPARE(overall(askOne(request({address}))), QStringLiteral("OK"));
}

void ServiceDecisionsTest::healthService()
{
    for (const QString& service : {QString(), QStringLiteral("envoy.service.ratelimit.v3.RateLimitService")}) {
        const PythonRun run = runRlsClient({m_service.grpcTarget(), QStringLiteral("health"), service});
        QCOMPARE(run.lines.size(), 1);
        QCOMPARE(QJsonDocument::fromJson(run.lines[0]).object().value(QStringLiteral("status")).toString(),
                 QStringLiteral("SERVING"));
    }
    // Any other name is not found, as grpc.health.v1 asks.
    const PythonRun other = runRlsClient({m_service.grpcTarget(), QStringLiteral("health"), QStringLiteral("no.such.Service")});
    QCOMPARE(QJsonDocument::fromJson(other.lines.value(0)).object().value(QStringLiteral("error")).toString(),
             QStringLiteral("NOT_FOUND"));
}

void ServiceDecisionsTest::callsAreServedOnThreadsOfItsOwn()
{
    ServiceProcess three;
    QVERIFY2(three.start(m_core.server().url(), sourcePath(QStringLiteral("tests/data/service_edge.yaml")),
                         {QStringLiteral("--grpc-threads"), QStringLiteral("3")}),
             qPrintable(three.errorString()));
    // The pollers are named as they start, which may come a moment after the port is open.
    const auto threadNames = [&three] {
        QStringList names;
        const QDir tasks(QStringLiteral("/proc/%1/task").arg(three.pid()));
        for (const QFileInfo& task : tasks.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            QFile comm(task.filePath() + QStringLiteral("/comm"));
            if (comm.open(QIODevice::ReadOnly))
                names << QString::fromUtf8(comm.readAll().trimmed());
        }
        return names;
    };
    const QRegularExpression poller(QStringLiteral("^rls-\\d+$"));
    // Three pollers of its own, and none of the callback API's (they hand every call over).
    QTRY_COMPARE_WITH_TIMEOUT(threadNames().filter(poller).size(), 3, 10'000);
    const QStringList names = threadNames();
    QVERIFY2(!names.contains(QStringLiteral("nexting_thread")), qPrintable(names.join(QLatin1Char(' '))));
    const PythonRun run = runRlsClient({three.grpcTarget(), QStringLiteral("decide")},
                                       request(Entries{{QStringLiteral("remote_address"), QStringLiteral("10.9.9.9")}}) + '\n');
    QVERIFY2(run.lines.value(0).contains("\"overall_code\": \"OK\""), run.lines.value(0).constData());
    QVERIFY(three.stop());

    for (const char* bad : {"-1", "257", "two"}) {
        QProcess refused;
        refused.start(tollgatedPath(), {QStringLiteral("--config"), sourcePath(QStringLiteral("tests/data/service_edge.yaml")),
                                        QStringLiteral("--grpc-threads"), QLatin1String(bad)});
        QVERIFY(refused.waitForFinished(10000));
        QCOMPARE(refused.exitCode(), 2);
        QVERIFY(refused.readAllStandardError().contains("--grpc-threads"));
    }
}

void ServiceDecisionsTest::reflectionListsTheServices()
{
    const PythonRun run = runRlsClient({m_service.grpcTarget(), QStringLiteral("reflect"),
                                        QStringLiteral("envoy.service.ratelimit.v3.RateLimitService")});
    QCOMPARE(run.lines.size(), 1);
    const QJsonObject answer = QJsonDocument::fromJson(run.lines[0]).object();
    QStringList services;
    for (const QJsonValue& name : answer.value(QStringLiteral("services")).toArray())
        services << name.toString();
    QVERIFY2(services.contains(QStringLiteral("envoy.service.ratelimit.v3.RateLimitService")) &&
                 services.contains(QStringLiteral("grpc.health.v1.Health")),
             run.lines[0].constData());
    // What grpcurl needs to build a request: the messages, from the server itself.
    QVERIFY2(run.lines[0].contains("envoy.service.ratelimit.v3.RateLimitRequest"), run.lines[0].constData());
}

QTEST_GUILESS_MAIN(ServiceDecisionsTest)
#include "tst_ServiceDecisions.moc"
