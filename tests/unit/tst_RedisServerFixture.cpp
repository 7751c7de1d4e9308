// Self-test of the redis-server fixture every integration test relies on: if this fails, the
// failures elsewhere are about the fixture, not about Tollgate.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tests/support/TlsCertificates.h"

#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QtTest>

using tollgate::test::RedisServer;
using tollgate::test::TlsCertificates;

namespace {

bool acceptsConnections(quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress(QHostAddress::LocalHost), port);
    return socket.waitForConnected(1000);
}

// Runs redis-cli PING over TLS trusting caCert; returns its output, or empty when it failed.
QByteArray redisCliTlsPing(const QString& redisCli, quint16 port, const QString& caCert)
{
    QProcess cli;
    cli.setProcessChannelMode(QProcess::MergedChannels);
    cli.start(redisCli, {QStringLiteral("--tls"), QStringLiteral("--cacert"), caCert,
                         QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                         QString::number(port), QStringLiteral("PING")});
    if (!cli.waitForFinished(5000))
        return {};
    const QByteArray output = cli.readAll().trimmed();
    return cli.exitCode() == 0 ? output : QByteArray();
}

} // namespace

class RedisServerFixtureTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void replyLength_data();
    void replyLength();
    void encodeCommand();
    void startsPrivateServer();
    void roundTripsBinaryValues();
    void pipelinesCommands();
    void refusesSecondStart();
    void killThenRestartKeepsPortAndDir();
    void destructorStopsServer();
    void extraArgsAndAuth();
    void restartBeforeStartFails();
    void tlsServer();
};

void RedisServerFixtureTest::replyLength_data()
{
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<qsizetype>("expected");

    QTest::newRow("simple") << QByteArray("+PONG\r\n") << qsizetype(7);
    QTest::newRow("simple, trailing data") << QByteArray("+OK\r\n:1\r\n") << qsizetype(5);
    QTest::newRow("error") << QByteArray("-ERR nope\r\n") << qsizetype(11);
    QTest::newRow("integer") << QByteArray(":-42\r\n") << qsizetype(6);
    QTest::newRow("bulk") << QByteArray("$3\r\nfoo\r\n") << qsizetype(9);
    QTest::newRow("bulk holding CRLF") << QByteArray("$4\r\n\r\n\r\n\r\n") << qsizetype(10);
    QTest::newRow("null bulk") << QByteArray("$-1\r\n") << qsizetype(5);
    QTest::newRow("empty bulk") << QByteArray("$0\r\n\r\n") << qsizetype(6);
    QTest::newRow("nested array") << QByteArray("*2\r\n*1\r\n:1\r\n$1\r\nx\r\n") << qsizetype(19);
    QTest::newRow("null array") << QByteArray("*-1\r\n") << qsizetype(5);
    QTest::newRow("resp3 map") << QByteArray("%1\r\n+a\r\n:1\r\n") << qsizetype(12);
    QTest::newRow("partial line") << QByteArray("+PON") << qsizetype(0);
    QTest::newRow("partial bulk") << QByteArray("$3\r\nfo") << qsizetype(0);
    QTest::newRow("partial array") << QByteArray("*2\r\n:1\r\n") << qsizetype(0);
    QTest::newRow("empty") << QByteArray() << qsizetype(0);
    QTest::newRow("unknown type") << QByteArray("?x\r\n") << qsizetype(-1);
    QTest::newRow("bad length") << QByteArray("$x\r\n") << qsizetype(-1);
}

void RedisServerFixtureTest::replyLength()
{
    QFETCH(QByteArray, data);
    QFETCH(qsizetype, expected);
    QCOMPARE(RedisServer::replyLength(data), expected);
}

void RedisServerFixtureTest::encodeCommand()
{
    QCOMPARE(RedisServer::encodeCommand({"SET", "k", ""}),
             QByteArray("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"));
}

void RedisServerFixtureTest::startsPrivateServer()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    QVERIFY(redis.isRunning());
    QVERIFY(redis.port() != 0);
    QCOMPARE(redis.url(), QStringLiteral("redis://127.0.0.1:") + QString::number(redis.port()));
    QVERIFY(QFileInfo(redis.dir()).isDir());

    QCOMPARE(redis.command({"PING"}), QByteArray("+PONG\r\n"));
    // The server really runs with our settings: no snapshots, data in our temporary dir.
    const QByteArray dir = QFileInfo(redis.dir()).canonicalFilePath().toUtf8();
    QCOMPARE(redis.command({"CONFIG", "GET", "dir"}),
             QByteArray("*2\r\n$3\r\ndir\r\n$" + QByteArray::number(dir.size()) + "\r\n" + dir +
                        "\r\n"));
    QCOMPARE(redis.command({"CONFIG", "GET", "save"}),
             QByteArray("*2\r\n$4\r\nsave\r\n$0\r\n\r\n"));
    QCOMPARE(redis.command({"CONFIG", "GET", "appendonly"}),
             QByteArray("*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"));
}

void RedisServerFixtureTest::roundTripsBinaryValues()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    const QByteArray key("tg:{user \r\n*}:like");
    const QByteArray value("a\r\n\0b", 5);
    QCOMPARE(redis.command({"SET", key, value, "PX", "60000"}), QByteArray("+OK\r\n"));
    QCOMPARE(redis.command({"GET", key}), QByteArray("$5\r\n" + value + "\r\n"));
    QCOMPARE(redis.command({"NOSUCHCOMMAND"}).left(4), QByteArray("-ERR"));
}

void RedisServerFixtureTest::pipelinesCommands()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    const QList<QByteArray> replies = redis.pipeline(
        {{"INCR", "n"}, {"INCR", "n"}, {"LRANGE", "nothing", "0", "-1"}, {"GET", "n"}});
    QCOMPARE(replies, (QList<QByteArray>{":1\r\n", ":2\r\n", "*0\r\n", "$1\r\n2\r\n"}));
}

void RedisServerFixtureTest::refusesSecondStart()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    const quint16 port = redis.port();
    QVERIFY(!redis.start());
    QVERIFY(redis.errorString().contains(QStringLiteral("already running")));
    QCOMPARE(redis.port(), port);
    QCOMPARE(redis.command({"PING"}), QByteArray("+PONG\r\n"));
}

void RedisServerFixtureTest::killThenRestartKeepsPortAndDir()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    const quint16 port = redis.port();
    const QString dir = redis.dir();
    QCOMPARE(redis.command({"SET", "counter", "7"}), QByteArray("+OK\r\n"));

    redis.kill();
    QVERIFY(!redis.isRunning());
    QVERIFY(!acceptsConnections(port));
    QVERIFY(redis.command({"PING"}, 500).isEmpty());

    TOLLGATE_REQUIRE(redis, restart());
    QCOMPARE(redis.port(), port);
    QCOMPARE(redis.dir(), dir);
    QCOMPARE(redis.command({"PING"}), QByteArray("+PONG\r\n"));
    // No persistence: a crash loses everything, which is what the reconnect tests rely on.
    QCOMPARE(redis.command({"EXISTS", "counter"}), QByteArray(":0\r\n"));

    // A graceful stop followed by restart works as well.
    redis.stop();
    QVERIFY(!redis.isRunning());
    TOLLGATE_REQUIRE(redis, restart());
    QCOMPARE(redis.port(), port);
    QCOMPARE(redis.command({"PING"}), QByteArray("+PONG\r\n"));
    QVERIFY(redis.log().contains("Ready to accept connections"));
}

void RedisServerFixtureTest::destructorStopsServer()
{
    quint16 port = 0;
    {
        RedisServer redis;
        TOLLGATE_REQUIRE(redis, start());
        port = redis.port();
        QVERIFY(acceptsConnections(port));
    }
    QVERIFY(!acceptsConnections(port));
}

void RedisServerFixtureTest::extraArgsAndAuth()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start({QStringLiteral("--requirepass"), QStringLiteral("s3cret")}));
    QVERIFY(redis.command({"PING"}).startsWith("-NOAUTH"));
    redis.setAuth("s3cret");
    QCOMPARE(redis.command({"PING"}), QByteArray("+PONG\r\n"));

    QCOMPARE(redis.command({"ACL", "SETUSER", "viewer", "on", ">pw", "~*", "+get"}),
             QByteArray("+OK\r\n"));
    redis.setAuth("pw", "viewer");
    QVERIFY(redis.command({"SET", "k", "v"}).startsWith("-NOPERM"));
    QCOMPARE(redis.command({"GET", "k"}), QByteArray("$-1\r\n"));

    // The extra arguments survive a restart.
    redis.kill();
    redis.setAuth({});
    TOLLGATE_REQUIRE(redis, restart());
    QVERIFY(redis.command({"PING"}).startsWith("-NOAUTH"));
}

void RedisServerFixtureTest::restartBeforeStartFails()
{
    RedisServer redis;
    QVERIFY(!redis.restart());
    QVERIFY(!redis.errorString().isEmpty());
    QVERIFY(redis.command({"PING"}, 200).isEmpty());
    QVERIFY(!RedisServer::redisServerPath().isEmpty());
}

void RedisServerFixtureTest::tlsServer()
{
    TlsCertificates certs;
    TOLLGATE_REQUIRE(certs, generate());
    const tollgate::test::TlsFiles& files = certs.files();
    for (const QString& file :
         {files.caCert, files.caKey, files.serverCert, files.serverKey, files.clientCert,
          files.clientKey, files.otherCaCert, files.otherCaKey})
        QVERIFY2(QFileInfo(file).size() > 0, qPrintable(file));

    RedisServer redis;
    TOLLGATE_REQUIRE(redis, startTls(files));
    QVERIFY(redis.isTls());
    QCOMPARE(redis.url(), QStringLiteral("rediss://127.0.0.1:") + QString::number(redis.port()));
    // command() talks TLS and verifies the server against our CA, by its IP subjectAltName.
    QCOMPARE(redis.command({"PING"}), QByteArray("+PONG\r\n"));
    QCOMPARE(redis.command({"CONFIG", "GET", "port"}),
             QByteArray("*2\r\n$4\r\nport\r\n$1\r\n0\r\n"));

    // Plain RESP on the TLS port gets no answer.
    QTcpSocket plain;
    plain.connectToHost(QHostAddress(QHostAddress::LocalHost), redis.port());
    QVERIFY(plain.waitForConnected(1000));
    plain.write(RedisServer::encodeCommand({"PING"}));
    QVERIFY(!plain.waitForReadyRead(500) || !plain.readAll().startsWith("+PONG"));

    // With client certificates required, command() still gets in: it presents clientCert.
    RedisServer mutual;
    TOLLGATE_REQUIRE(
        mutual, startTls(files, {QStringLiteral("--tls-auth-clients"), QStringLiteral("yes")}));
    QCOMPARE(mutual.command({"PING"}), QByteArray("+PONG\r\n"));

    const QString redisCli = QStandardPaths::findExecutable(QStringLiteral("redis-cli"));
    if (redisCli.isEmpty()) {
        qWarning("redis-cli not found: skipping the independent TLS client check");
        return;
    }
    QCOMPARE(redisCliTlsPing(redisCli, redis.port(), files.caCert), QByteArray("PONG"));
    QCOMPARE(redisCliTlsPing(redisCli, redis.port(), files.otherCaCert), QByteArray());
    // redis-cli presents no client certificate, so the mutual-TLS server turns it away.
    QCOMPARE(redisCliTlsPing(redisCli, mutual.port(), files.caCert), QByteArray());
}

QTEST_GUILESS_MAIN(RedisServerFixtureTest)
#include "tst_RedisServerFixture.moc"
