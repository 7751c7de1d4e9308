// tollgatectl exporter scraped by a real Prometheus (Debian's package, started privately):
// known traffic through the library comes out of Prometheus' query API exactly, bans appear,
// two exporters (and a restarted one) show the same counters because Redis holds them,
// promtool accepts the exposition, and every PromQL expression of the Grafana dashboard and
// of the rules runs without error on metric names the exporter serves.
#include "tests/support/CoreFixture.h"
#include "tests/support/ExporterProcess.h"
#include "tests/support/PrometheusServer.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QtTest>
#include <cmath>

using namespace tollgate;
using namespace tollgate::test;

class PrometheusExportTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void hitsReachPrometheus();
    void bansReachPrometheus();
    void exportersAgreeAndSurviveRestarts();
    void promtoolAcceptsTheExposition();
    void openMetricsWhenAsked();
    void dashboardQueriesRun();
    void rulesQueriesRun();

private:
    // Every sample line of one family (`name` then '{' or ' '), in order.
    static QStringList samples(const QByteArray& exposition, const QByteArray& name);
    // Metric names in a PromQL expression that look like ours.
    static QSet<QString> ourMetricNames(const QString& expr);
    void checkExpressions(const QStringList& exprs, const QString& where);

    CoreFixture m_core;
    ExporterProcess m_exporter;
    PrometheusServer m_prometheus;
    qint64 m_hitsSent = 0;
};

void PrometheusExportTest::initTestCase()
{
    if (!PrometheusServer::available())
        QFAIL("prometheus and promtool must be on PATH (scripts/setup.sh installs them)");
    TOLLGATE_REQUIRE(m_core, start());
    QVERIFY(m_core.flush());
    Policy like = makePolicy("like", 5, 60000);
    like.banMs = 3'600'000;
    Policy post = makePolicy("post", 3, 60000);
    post.warn = 2;
    QVERIFY(m_core.save(like).ok());
    QVERIFY(m_core.save(post).ok());

    // Known traffic through the library: every hit recorded (HitStats -> stats.lua).
    Limiter limiter(m_core.client(), m_core.schema());
    limiter.setRecordStats(true);
    auto hit = [&](const Policy& policy, const QByteArray& user) {
        auto r = await<HitResult>([&](QObject* c, Callback<HitResult> done) {
            limiter.hit(policy, user, 0, c, std::move(done));
        });
        ++m_hitsSent;
        return r ? r->tier : Tier::Ok;
    };
    // like: alice 5 allowed, a deny that bans her, a hit refused by the ban; bob 3 allowed.
    for (int i = 0; i < 5; ++i)
        QCOMPARE(hit(like, "alice"), Tier::Ok);
    QCOMPARE(hit(like, "alice"), Tier::Deny);
    QCOMPARE(hit(like, "alice"), Tier::Banned);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(hit(like, "bob"), Tier::Ok);
    // post: carol 2 allowed, 1 warned (count 3 > warn 2), then denied.
    QCOMPARE(hit(post, "carol"), Tier::Ok);
    QCOMPARE(hit(post, "carol"), Tier::Ok);
    QCOMPARE(hit(post, "carol"), Tier::Warn);
    QCOMPARE(hit(post, "carol"), Tier::Deny);
    // Manual bans: dave from like, eve from everything.
    for (const QByteArray& action : {QByteArray("like"), QByteArray()}) {
        BanRequest ban{action.isEmpty() ? "eve" : "dave", action,    QStringLiteral("test"),
                       QStringLiteral("metrics"),         3'600'000, 0};
        QVERIFY(await<BanInfo>([&](QObject* c, Callback<BanInfo> done) {
                    m_core.moderation().ban(ban, c, std::move(done));
                }).ok());
    }

    QVERIFY2(m_exporter.start(m_core.server().url(),
                              {QStringLiteral("--interval"), QStringLiteral("1s")}),
             qPrintable(m_exporter.errorString()));
    QVERIFY2(
        m_prometheus.start({m_exporter.address()},
                           {sourcePath(QStringLiteral("resources/prometheus/tollgate-rules.yml"))}),
        qPrintable(m_prometheus.errorString()));
    QTRY_COMPARE_WITH_TIMEOUT(m_prometheus.scalar(QStringLiteral("up{job=\"tollgate\"}")), 1.0,
                              30000);
}

void PrometheusExportTest::hitsReachPrometheus()
{
    const auto hits = [&](QLatin1String action, QLatin1String outcome) {
        return m_prometheus.scalar(
            QStringLiteral("tollgate_hits_total{action=\"%1\",outcome=\"%2\"}")
                .arg(action, outcome));
    };
    QTRY_COMPARE_WITH_TIMEOUT(m_prometheus.scalar(QStringLiteral("sum(tollgate_hits_total)")),
                              double(m_hitsSent), 30000);
    QCOMPARE(hits(QLatin1String("like"), QLatin1String("allowed")), 8.0);
    QCOMPARE(hits(QLatin1String("like"), QLatin1String("denied")), 1.0);
    QCOMPARE(hits(QLatin1String("like"), QLatin1String("banned")), 1.0);
    QCOMPARE(hits(QLatin1String("like"), QLatin1String("warned")), 0.0);
    QCOMPARE(hits(QLatin1String("post"), QLatin1String("allowed")), 2.0);
    QCOMPARE(hits(QLatin1String("post"), QLatin1String("warned")), 1.0);
    QCOMPARE(hits(QLatin1String("post"), QLatin1String("denied")), 1.0);
    QCOMPARE(m_prometheus.scalar(QStringLiteral("tollgate_redis_up")), 1.0);
    // Never a user id as a label: no series carries alice or a "user" label.
    QCOMPARE(m_prometheus.query(QStringLiteral("{__name__=~\"tollgate_.+\",user!=\"\"}")).size(),
             0);
}

void PrometheusExportTest::bansReachPrometheus()
{
    const auto created = [&](QLatin1String action, QLatin1String source) {
        return m_prometheus.scalar(
            QStringLiteral("tollgate_bans_created_total{action=\"%1\",source=\"%2\"}")
                .arg(action, source));
    };
    QTRY_COMPARE_WITH_TIMEOUT(created(QLatin1String("like"), QLatin1String("automatic")), 1.0,
                              30000);
    QCOMPARE(created(QLatin1String("like"), QLatin1String("manual")), 1.0);
    QCOMPARE(created(QLatin1String("*"), QLatin1String("manual")), 1.0);
    QCOMPARE(created(QLatin1String("post"), QLatin1String("automatic")), 0.0); // post does not ban
    // From the background scan: alice (automatic) and dave (manual) from like, eve from all.
    QTRY_COMPARE_WITH_TIMEOUT(m_prometheus.scalar(QStringLiteral(
                                  "tollgate_bans_active{action=\"like\",scope=\"action\"}")),
                              2.0, 30000);
    QCOMPARE(
        m_prometheus.scalar(QStringLiteral("tollgate_bans_active{action=\"*\",scope=\"user\"}")),
        1.0);
    QCOMPARE(m_prometheus.scalar(QStringLiteral("tollgate_subjects{action=\"like\"}")), 3.0);
    QCOMPARE(m_prometheus.scalar(QStringLiteral("tollgate_subjects{action=\"post\"}")), 1.0);
    QCOMPARE(m_prometheus.scalar(QStringLiteral("tollgate_keys_without_ttl")), 0.0);
    QCOMPARE(m_prometheus.scalar(QStringLiteral("count(tollgate_policy_info)")), 2.0);
    QVERIFY(m_prometheus.scalar(QStringLiteral("tollgate_census_age_seconds")) < 30);
}

void PrometheusExportTest::exportersAgreeAndSurviveRestarts()
{
    ExporterProcess second;
    QVERIFY2(second.start(m_core.server().url()), qPrintable(second.errorString()));
    const QByteArray first = m_exporter.get("/metrics").body;
    const QByteArray other = second.get("/metrics").body;
    for (const QByteArray family : {"tollgate_hits_total", "tollgate_bans_created_total",
                                    "tollgate_policy_info", "tollgate_hit_cost_total"}) {
        QVERIFY2(!samples(first, family).isEmpty(), family.constData());
        QCOMPARE(samples(other, family), samples(first, family));
    }
    // A restarted exporter starts from Redis' totals, not from 0.
    QVERIFY(second.stop());
    ExporterProcess restarted;
    QVERIFY2(restarted.start(m_core.server().url()), qPrintable(restarted.errorString()));
    QCOMPARE(samples(restarted.get("/metrics").body, "tollgate_hits_total"),
             samples(first, "tollgate_hits_total"));
}

void PrometheusExportTest::promtoolAcceptsTheExposition()
{
    const auto response = m_exporter.get("/metrics");
    QCOMPARE(response.status, 200);
    QVERIFY(response.contentType.startsWith("text/plain; version=0.0.4"));
    const ToolRun check =
        runTool(QStringLiteral("promtool"), {QStringLiteral("check"), QStringLiteral("metrics")},
                response.body);
    QVERIFY2(check.code == 0, check.output.constData());
    QVERIFY2(check.output.trimmed().isEmpty(), check.output.constData()); // no lint warnings
    for (const QByteArray user : {"alice", "bob", "carol", "dave", "eve"})
        QVERIFY2(!response.body.contains(QByteArray('"' + user + '"')),
                 user.constData()); // no user id
}

void PrometheusExportTest::openMetricsWhenAsked()
{
    const auto response =
        m_exporter.get("/metrics", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5");
    QCOMPARE(response.status, 200);
    QVERIFY(response.contentType.startsWith("application/openmetrics-text; version=1.0.0"));
    QVERIFY(response.body.endsWith("# EOF\n"));
    QVERIFY(response.body.contains("# TYPE tollgate_hits counter\n"));
    QVERIFY(response.body.contains("# TYPE tollgate_policy info\n"));
    // Prometheus itself negotiates OpenMetrics and ingests it: no failed or partial scrape.
    QCOMPARE(m_prometheus.scalar(QStringLiteral("up{job=\"tollgate\"}")), 1.0);
    QVERIFY(m_prometheus.scalar(QStringLiteral("scrape_samples_scraped{job=\"tollgate\"}")) > 20);
}

QStringList PrometheusExportTest::samples(const QByteArray& exposition, const QByteArray& name)
{
    QStringList lines;
    for (const QByteArray& line : exposition.split('\n'))
        if (line.startsWith(QByteArray(name + '{')) || line.startsWith(QByteArray(name + ' ')))
            lines << QString::fromUtf8(line);
    return lines;
}

QSet<QString> PrometheusExportTest::ourMetricNames(const QString& expr)
{
    // Not the parts of a recording rule name (level:metric:operations).
    static const QRegularExpression name(QStringLiteral("(?<![:\\w])tollgate_[a-z_]+(?![:\\w])"));
    QSet<QString> names;
    for (auto it = name.globalMatch(expr); it.hasNext();)
        names.insert(it.next().captured(0));
    return names;
}

void PrometheusExportTest::checkExpressions(const QStringList& exprs, const QString& where)
{
    QVERIFY2(!exprs.isEmpty(), qPrintable(where + QStringLiteral(": no expressions found")));
    // The names the exporter serves right now (every family has samples in this test).
    QSet<QString> served;
    for (const QByteArray& line : m_exporter.get("/metrics").body.split('\n'))
        if (line.startsWith("tollgate_"))
            served.insert(
                QString::fromUtf8(line.left(line.indexOf(line.contains('{') ? '{' : ' '))));
    for (const QString& expr : exprs) {
        for (const QString& name : ourMetricNames(expr))
            QVERIFY2(
                served.contains(name),
                qPrintable(where + QStringLiteral(": %1 is not served, in: %2").arg(name, expr)));
        QString error;
        m_prometheus.query(expr, &error);
        QVERIFY2(error.isEmpty(), qPrintable(where + QStringLiteral(": %1: %2").arg(expr, error)));
    }
}

void PrometheusExportTest::dashboardQueriesRun()
{
    QFile file(sourcePath(QStringLiteral("resources/grafana/tollgate-dashboard.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonDocument dashboard = QJsonDocument::fromJson(file.readAll());
    QVERIFY(dashboard.isObject());
    QStringList exprs;
    for (const QJsonValue& panel : dashboard.object().value(QStringLiteral("panels")).toArray())
        for (const QJsonValue& target : panel.toObject().value(QStringLiteral("targets")).toArray())
            exprs << target.toObject().value(QStringLiteral("expr")).toString();
    // Grafana's $__rate_interval is Grafana's; Prometheus gets what Grafana would send.
    for (QString& expr : exprs) {
        expr.replace(QStringLiteral("$__rate_interval"), QStringLiteral("1m"));
        expr.replace(QStringLiteral("$action"), QStringLiteral(".+")); // "All"
    }
    checkExpressions(exprs, QStringLiteral("dashboard"));
}

void PrometheusExportTest::rulesQueriesRun()
{
    // Loaded by the test Prometheus: each group evaluated without error.
    QJsonObject rules;
    QTRY_VERIFY_WITH_TIMEOUT(
        (rules = m_prometheus.api(QStringLiteral("rules")), !rules.value(QStringLiteral("data"))
                                                                 .toObject()
                                                                 .value(QStringLiteral("groups"))
                                                                 .toArray()
                                                                 .isEmpty()),
        30000);
    QStringList exprs;
    for (const QJsonValue& group :
         rules.value(QStringLiteral("data")).toObject().value(QStringLiteral("groups")).toArray())
        for (const QJsonValue& rule : group.toObject().value(QStringLiteral("rules")).toArray()) {
            const QJsonObject r = rule.toObject();
            QVERIFY2(r.value(QStringLiteral("health")).toString() != QLatin1String("err"),
                     qPrintable(r.value(QStringLiteral("lastError")).toString()));
            exprs << r.value(QStringLiteral("query")).toString();
        }
    checkExpressions(exprs, QStringLiteral("rules"));
}

QTEST_GUILESS_MAIN(PrometheusExportTest)
#include "tst_PrometheusExport.moc"
