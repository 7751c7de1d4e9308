// tollgated under clients that misbehave and a Redis that stops answering: half-sent HTTP
// requests are closed, connections past the cap are refused, running out of file descriptors
// neither spins nor leaves new clients hanging once descriptors are free, and with Redis frozen
// every decision (requests sent behind others on one connection too) gets the failure policy's
// answer, the insurance limiter's counting each hit once. How fast is measured in bench_service
// (bench/service/FrozenRedis.cpp), not here.
#include "tests/support/RawHttp.h"
#include "tests/support/RedisServer.h"
#include "tests/support/ServiceProcess.h"
#include "tests/support/TestEnv.h"

#include <QDir>
#include <QFile>
#include <QTcpSocket>
#include <QThread>
#include <QtTest>
#include <csignal>
#include <unistd.h>

using namespace tollgate::test;

namespace {

// CPU seconds the process has used (user + system), from /proc.
double cpuSeconds(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray text = stat.readAll();
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    return (fields.value(11).toDouble() + fields.value(12).toDouble()) / double(sysconf(_SC_CLK_TCK));
}

} // namespace

class ServiceHostileTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void halfSentRequestIsClosed();
    void connectionsPastTheCapAreRefused();
    void outOfDescriptorsNeitherSpinsNorHangs();
    void frozenRedisGetsTheFailurePolicysAnswer();
    void frozenRedisInsuranceCountsEachHitOnce();

private:
    QString config() const { return sourcePath(QStringLiteral("tests/data/service_edge.yaml")); }
    RedisServer m_redis;
};

void ServiceHostileTest::initTestCase()
{
    QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
}

void ServiceHostileTest::halfSentRequestIsClosed()
{
    ServiceProcess service;
    QVERIFY2(service.start(m_redis.url(), config()), qPrintable(service.errorString()));
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), service.httpPort());
    QVERIFY(socket.waitForConnected(5000));
    socket.write("POST /v1/decide HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"domain\":");
    QVERIFY(socket.waitForBytesWritten(5000));
    // The request's deadline is 10 s (docs/service.md); the connection is closed then, with
    // nothing answered.
    QVERIFY(socket.state() == QAbstractSocket::UnconnectedState || socket.waitForDisconnected(20000));
    QVERIFY(socket.readAll().isEmpty());
}

void ServiceHostileTest::connectionsPastTheCapAreRefused()
{
    ServiceProcess service;
    QVERIFY2(service.start(m_redis.url(), config(), {QStringLiteral("--http-max-connections"), QStringLiteral("3")}),
             qPrintable(service.errorString()));
    std::vector<std::unique_ptr<QTcpSocket>> open;
    for (int i = 0; i < 3; ++i) {
        open.push_back(std::make_unique<QTcpSocket>());
        open.back()->connectToHost(QStringLiteral("127.0.0.1"), service.httpPort());
        QVERIFY(open.back()->waitForConnected(5000));
    }
    QThread::msleep(200); // accepted by the server
    QTcpSocket extra;
    extra.connectToHost(QStringLiteral("127.0.0.1"), service.httpPort());
    QVERIFY(extra.waitForConnected(5000));
    const QList<QByteArray> refused = readAnswers(extra, 1, 5000);
    QCOMPARE(refused.size(), 1);
    QVERIFY2(refused[0].startsWith("HTTP/1.1 503"), refused[0].constData());
    // The ones within the cap are served.
    open[0]->write(decideRequest("10.1.0.1"));
    const QList<QByteArray> served = readAnswers(*open[0], 1, 5000);
    QCOMPARE(served.size(), 1);
    QVERIFY2(served[0].startsWith("HTTP/1.1 200"), served[0].constData());
}

void ServiceHostileTest::outOfDescriptorsNeitherSpinsNorHangs()
{
    ServiceProcess service;
    QVERIFY2(service.start(m_redis.url(), config()), qPrintable(service.errorString()));
    // Few descriptors left: tollgated's own (Redis, gRPC, inotify...) and a few more.
    const int fds = int(QDir(QStringLiteral("/proc/%1/fd").arg(service.pid())).count()) - 2;
    QProcess prlimit;
    prlimit.start(QStringLiteral("prlimit"), {QStringLiteral("--pid"), QString::number(service.pid()),
                                              QStringLiteral("--nofile=%1:%1").arg(fds + 8)});
    QVERIFY(prlimit.waitForFinished(10000));
    QCOMPARE(prlimit.exitCode(), 0);
    std::vector<std::unique_ptr<QTcpSocket>> flood;
    for (int i = 0; i < 40; ++i) {
        flood.push_back(std::make_unique<QTcpSocket>());
        flood.back()->connectToHost(QStringLiteral("127.0.0.1"), service.httpPort());
        flood.back()->waitForConnected(2000); // the kernel completes it; the server cannot accept
    }
    QThread::msleep(500);
    const double before = cpuSeconds(service.pid());
    QThread::msleep(2000);
    const double used = cpuSeconds(service.pid()) - before;
    // A loop on accept4 = EMFILE takes the whole core (2 s of CPU in 2 s).
    QVERIFY2(used < 0.5, qPrintable(QStringLiteral("%1 s of CPU in 2 s").arg(used)));
    flood.clear(); // descriptors free again: a new client is served
    QTcpSocket client;
    client.connectToHost(QStringLiteral("127.0.0.1"), service.httpPort());
    QVERIFY(client.waitForConnected(5000));
    client.write(decideRequest("10.1.0.2"));
    const QList<QByteArray> answers = readAnswers(client, 1, 15000);
    QCOMPARE(answers.size(), 1);
    QVERIFY2(answers[0].startsWith("HTTP/1.1 200"), answers[0].constData());
}

void ServiceHostileTest::frozenRedisGetsTheFailurePolicysAnswer()
{
    ServiceProcess service;
    QVERIFY2(service.start(m_redis.url() + QStringLiteral("?timeout=100"), config(),
                           {QStringLiteral("--on-error"), QStringLiteral("deny")}),
             qPrintable(service.errorString()));
    QVERIFY2(service.waitForLog("unchanged"), service.stderrText().constData());
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), service.httpPort());
    QVERIFY(socket.waitForConnected(5000));
    ::kill(pid_t(m_redis.processId()), SIGSTOP);
    // Two requests sent at once on one connection: each answered, in order, by the failure
    // policy (deny: OVER_LIMIT), never with an error.
    socket.write(decideRequest("10.2.0.1") + decideRequest("10.2.0.2"));
    const QList<QByteArray> answers = readAnswers(socket, 2, 10000);
    const PythonRun grpc = runRlsClient({service.grpcTarget(), QStringLiteral("decide")},
                                        R"({"domain":"edge","descriptors":[{"entries":[{"key":"remote_address","value":"10.2.0.3"}]}]})"
                                        "\n");
    ::kill(pid_t(m_redis.processId()), SIGCONT);
    QCOMPARE(answers.size(), 2);
    for (const QByteArray& answer : answers) {
        QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
        QVERIFY2(answer.contains(R"("overall_code":"OVER_LIMIT")"), answer.constData());
    }
    QCOMPARE(grpc.lines.size(), 1);
    QVERIFY2(grpc.lines[0].contains(R"("overall_code": "OVER_LIMIT")"), grpc.lines[0].constData());
    // Each of the three is counted by how late after its deadline it went (docs/service.md,
    // "Metrics"), once the deadlines thread has handed the last one on.
    const auto lateness = [&service] {
        QByteArray lines;
        for (const QByteArray& line : service.curl("GET", "/metrics").body.split('\n'))
            if (line.startsWith("tollgated_deadline_lateness_seconds_"))
                lines += line + '\n';
        return lines;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(lateness().contains("tollgated_deadline_lateness_seconds_count 3\n"),
                              lateness().constData(), 10000);
    QVERIFY2(lateness().contains("tollgated_deadline_lateness_seconds_bucket{le=\"+Inf\"} 3\n"),
             lateness().constData());
}

void ServiceHostileTest::frozenRedisInsuranceCountsEachHitOnce()
{
    // Each decision is answered at its deadline by the insurance limiter, which then counts the
    // hit once (when the command's own deadline passes), not once more: 3 a minute lets the
    // first three through and refuses the fourth.
    ServiceProcess service;
    QVERIFY2(service.start(m_redis.url() + QStringLiteral("?timeout=100"), config(),
                           {QStringLiteral("--on-error"), QStringLiteral("insurance")}),
             qPrintable(service.errorString()));
    QVERIFY2(service.waitForLog("policies:"), service.stderrText().constData());
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), service.httpPort());
    QVERIFY(socket.waitForConnected(5000));
    ::kill(pid_t(m_redis.processId()), SIGSTOP);
    QList<QByteArray> answers;
    for (int i = 0; i < 4; ++i) {
        socket.write(decideRequest("10.3.0.1"));
        answers += readAnswers(socket, 1, 10000);
    }
    ::kill(pid_t(m_redis.processId()), SIGCONT);
    QCOMPARE(answers.size(), 4);
    for (int i = 0; i < 4; ++i)
        QVERIFY2(answers[i].contains(i < 3 ? R"("overall_code":"OK")" : R"("overall_code":"OVER_LIMIT")"),
                 answers[i].constData());
}

QTEST_GUILESS_MAIN(ServiceHostileTest)
#include "tst_ServiceHostile.moc"
