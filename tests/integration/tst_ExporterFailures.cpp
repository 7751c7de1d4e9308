// tollgatectl exporter under bad input: an unreachable Redis, corrupted stats keys, a port in
// use, clients that hang up mid-request, a read-only ACL user, and SIGTERM. Each gets a clear
// error on /metrics or stderr, and the exporter keeps serving.
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/ExporterProcess.h"
#include "tests/support/PrometheusServer.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

class ExporterFailuresTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void unreachableRedis();
    void corruptedStatsKeys();
    void portInUse();
    void badListenAddress();
    void clientsThatHangUp();
    void readOnlyUserIsEnough();
    void stopsOnSigterm();

private:
    static double value(const QByteArray& exposition, const QByteArray& series);

    CoreFixture m_core;
};

double ExporterFailuresTest::value(const QByteArray& exposition, const QByteArray& series)
{
    for (const QByteArray& line : exposition.split('\n'))
        if (line.startsWith(QByteArray(series + ' ')))
            return line.mid(series.size() + 1).toDouble();
    return -1;
}

void ExporterFailuresTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void ExporterFailuresTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
    QVERIFY(m_core.save(makePolicy("like", 5, 60000)).ok());
    QVERIFY(m_core.save(makePolicy("post", 5, 60000)).ok());
}

void ExporterFailuresTest::unreachableRedis()
{
    ExporterProcess exporter;
    // Nothing listens there: every scrape says so, and the process keeps serving.
    const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(RedisServer::freePort());
    QVERIFY2(exporter.start(url), qPrintable(exporter.errorString()));
    for (int scrape = 0; scrape < 3; ++scrape) {
        const auto metrics = exporter.get("/metrics");
        QCOMPARE(metrics.status, 200);
        QCOMPARE(value(metrics.body, "tollgate_redis_up"), 0.0);
        QVERIFY(!metrics.body.contains("tollgate_hits_total{"));
    }
    QVERIFY(value(exporter.get("/metrics").body, "tollgate_exporter_errors_total{kind=\"io\"}") +
                value(exporter.get("/metrics").body,
                      "tollgate_exporter_errors_total{kind=\"closed\"}") >=
            3);
    const auto ready = exporter.get("/-/ready");
    QCOMPARE(ready.status, 503);
    QVERIFY2(ready.body.startsWith("Redis does not answer: "), ready.body.constData());
    QCOMPARE(exporter.get("/-/healthy").status, 200);
    QTRY_VERIFY2(exporter.stderrText().contains("scrape: "), exporter.stderrText().constData());
}

void ExporterFailuresTest::corruptedStatsKeys()
{
    // like's stats key is a string; post's totals do not add up. Neither stops the scrape.
    QVERIFY(m_core.inspect({"SET", m_core.schema().statsKey("like"), "garbage"}).ok());
    QVERIFY(
        m_core.inspect({"HSET", m_core.schema().statsKey("post"), "total:h", "1", "total:d", "7"})
            .ok());
    ExporterProcess exporter;
    QVERIFY2(exporter.start(m_core.server().url()), qPrintable(exporter.errorString()));
    const auto metrics = exporter.get("/metrics");
    QCOMPARE(metrics.status, 200);
    QCOMPARE(value(metrics.body, "tollgate_redis_up"), 1.0);
    QCOMPARE(value(metrics.body, "tollgate_exporter_errors_total{kind=\"corrupt_stats\"}"), 2.0);
    QVERIFY(!metrics.body.contains("tollgate_hits_total{action=\"like\""));
    QVERIFY(!metrics.body.contains("tollgate_hits_total{action=\"post\""));
    QVERIFY(metrics.body.contains("tollgate_policy_info{action=\"like\""));
    QTRY_VERIFY(exporter.stderrText().contains(m_core.schema().statsKey("like")));
    QTRY_VERIFY(exporter.stderrText().contains(m_core.schema().statsKey("post")));
    // Repaired by hand (one key per DEL: on a cluster they live in different slots): the next
    // scrape is clean again.
    QVERIFY(m_core.inspect({"DEL", m_core.schema().statsKey("like")}).ok());
    QVERIFY(m_core.inspect({"DEL", m_core.schema().statsKey("post")}).ok());
    const auto clean = exporter.get("/metrics");
    QCOMPARE(value(clean.body, "tollgate_hits_total{action=\"like\",outcome=\"allowed\"}"), 0.0);
    QCOMPARE(value(clean.body, "tollgate_exporter_errors_total{kind=\"corrupt_stats\"}"), 2.0);
}

void ExporterFailuresTest::portInUse()
{
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost));
    const CliRun run = runCli(tollgatectlPath(), m_core.server().url(),
                              {QStringLiteral("exporter"), QStringLiteral("--listen"),
                               QStringLiteral("127.0.0.1:%1").arg(taken.serverPort())});
    QCOMPARE(run.code, 3);
    QVERIFY2(run.err.contains(QByteArray("cannot listen on 127.0.0.1:" +
                                         QByteArray::number(taken.serverPort()))),
             qPrintable(run.describe()));
}

void ExporterFailuresTest::badListenAddress()
{
    for (const QString& listen : {QStringLiteral("localhost"), QStringLiteral("nohost:99"),
                                  QStringLiteral("127.0.0.1:99999")}) {
        const CliRun run = runCli(tollgatectlPath(), m_core.server().url(),
                                  {QStringLiteral("exporter"), QStringLiteral("--listen"), listen});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains("--listen"), qPrintable(run.describe()));
    }
}

void ExporterFailuresTest::clientsThatHangUp()
{
    ExporterProcess exporter;
    QVERIFY2(exporter.start(m_core.server().url()), qPrintable(exporter.errorString()));
    for (int i = 0; i < 20; ++i) {
        QTcpSocket socket;
        socket.connectToHost(QStringLiteral("127.0.0.1"), exporter.port());
        QVERIFY(socket.waitForConnected(5000));
        // Half of them mid-request, half right after asking (mid-scrape).
        socket.write(i % 2 ? QByteArray("GET /metr") : QByteArray("GET /metrics HTTP/1.1\r\n\r\n"));
        QVERIFY(socket.waitForBytesWritten(5000));
        socket.abort();
    }
    // Garbage and an oversized head get an answer, not a crash.
    QTcpSocket garbage;
    garbage.connectToHost(QStringLiteral("127.0.0.1"), exporter.port());
    QVERIFY(garbage.waitForConnected(5000));
    garbage.write("\x16\x03\x01 not http\r\n\r\n");
    QTRY_VERIFY(garbage.bytesAvailable() > 0 || garbage.waitForReadyRead(100));
    QVERIFY(garbage.readAll().startsWith("HTTP/1.1 400"));
    QCOMPARE(exporter.get("/nope").status, 404);
    const auto metrics = exporter.get("/metrics");
    QCOMPARE(metrics.status, 200);
    QCOMPARE(value(metrics.body, "tollgate_redis_up"), 1.0);
}

void ExporterFailuresTest::readOnlyUserIsEnough()
{
    if (m_core.onCluster())
        QSKIP("ACL users are per node; tst_AclRoles covers the roles on one server");
    // The exporter's own ACL line of docs/metrics.md.
    const QByteArray line = "ACL SETUSER exporter on >exporter-password resetkeys %R~tg:* "
                            "resetchannels -@all +time +scan +pttl +hget +hmget +hgetall "
                            "+smembers +client|setname";
    QList<QByteArray> args = line.split(' ');
    QVERIFY(m_core.inspect(args).ok());
    ExporterProcess exporter;
    QUrl url(m_core.server().url());
    url.setUserName(QStringLiteral("exporter"));
    url.setPassword(QStringLiteral("exporter-password"));
    QVERIFY(m_core.inspect({"SET", "tg:{zed}:like:fw:60000", "1"}).ok()); // no TTL: found
    QVERIFY2(exporter.start(url.toString()), qPrintable(exporter.errorString()));
    QTRY_VERIFY_WITH_TIMEOUT(
        value(exporter.get("/metrics").body, "tollgate_keys_without_ttl") == 1.0, 30000);
    const QByteArray body = exporter.get("/metrics").body;
    QCOMPARE(value(body, "tollgate_redis_up"), 1.0);
    for (const QByteArray& line : body.split('\n'))
        if (line.startsWith("tollgate_exporter_errors_total"))
            QVERIFY2(line.endsWith(" 0"), line.constData());
    QCOMPARE(value(body, "tollgate_hits_total{action=\"like\",outcome=\"allowed\"}"), 0.0);
}

void ExporterFailuresTest::stopsOnSigterm()
{
    ExporterProcess exporter;
    QVERIFY2(exporter.start(m_core.server().url()), qPrintable(exporter.errorString()));
    QCOMPARE(exporter.get("/-/ready").status, 200);
    QVERIFY2(exporter.stop(), exporter.stderrText().constData());
}

QTEST_GUILESS_MAIN(ExporterFailuresTest)
#include "tst_ExporterFailures.moc"
