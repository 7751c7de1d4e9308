// Errors keep their cause: a refused connection, a missing CA file or unix socket say so (not
// "not connected"), and a peer announcing an absurd reply (`*2147483647`) is refused at the
// header with a Protocol error instead of making the reader reserve gigabytes.
#include "tests/support/CoreFixture.h"
#include "tests/support/FakeRespServer.h"
#include "tests/support/TransportCheck.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::FakeRespServer;
using tollgate::test::RedisServer;

class tst_ErrorCauses : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hostileHeaderIsRefused_data();
    void hostileHeaderIsRefused();
    void repliesBeforeTheBadHeaderArrive();
    void largeButSaneRepliesPass();
    void firstCauseIsKept_data();
    void firstCauseIsKept();
    void reconnectingNamesTheCause();

private:
    static QByteArray handshake(const QList<QByteArray>& request)
    {
        const QByteArray name = request.value(0).toUpper();
        if (name == "PING")
            return "+PONG\r\n";
        if (name == "CLIENT")
            return "+OK\r\n";
        if (name == "HELLO") // as a server before 6.0: the client takes it for a standalone one
            return "-ERR unknown command 'HELLO'\r\n";
        return {};
    }
    static std::unique_ptr<Client> connectTo(const QString& url, bool reconnect = false)
    {
        auto options = ConnectionOptions::fromUrl(url);
        if (!options)
            return nullptr;
        options->autoReconnect = reconnect;
        options->connectTimeout = std::chrono::milliseconds(5000);
        auto client = std::make_unique<Client>(*options);
        client->open();
        return client;
    }
    static Result<Reply> run(Client* client, const Command& command)
    {
        return await<Reply>([&](QObject* context, Callback<Reply> done) {
            client->execute(command, context, std::move(done));
        });
    }
};

void tst_ErrorCauses::hostileHeaderIsRefused_data()
{
    QTest::addColumn<QByteArray>("reply");
    QTest::newRow("array of 2^31-1") << QByteArray("*2147483647\r\n");
    QTest::newRow("array one past the cap") << QByteArray("*1048577\r\n");
    QTest::newRow("nested array") << QByteArray("*2\r\n:1\r\n*2147483647\r\n");
    QTest::newRow("bulk of 2^31-1") << QByteArray("$2147483647\r\n");
    QTest::newRow("bulk of 1 TiB") << QByteArray("$1099511627776\r\n");
    QTest::newRow("not a number") << QByteArray("*lots\r\n");
    QTest::newRow("endless line") << QByteArray("+") + QByteArray(70 * 1024, 'x');
}

void tst_ErrorCauses::hostileHeaderIsRefused()
{
    QFETCH(QByteArray, reply);
    FakeRespServer server([&](const QList<QByteArray>& request) -> QByteArray {
        const QByteArray known = handshake(request);
        return known.isEmpty() ? reply : known;
    });
    QVERIFY(server.listen());
    auto client = connectTo(server.url());
    const Result<Reply> result = run(client.get(), {"GET", "k"});
    QVERIFY2(!result, "a reply that breaks the limits must not be accepted");
    QCOMPARE(result.error().kind, ErrorKind::Protocol);
    QVERIFY2(result.error().message.contains(QStringLiteral("invalid reply")),
             qPrintable(result.error().message));
    // The stream is dropped: no later reply can be mismatched with a request.
    QTRY_COMPARE(client->state(), ConnectionState::Disconnected);
}

void tst_ErrorCauses::repliesBeforeTheBadHeaderArrive()
{
    // Both replies come in one write: the good one is delivered, the bad one ends the stream.
    FakeRespServer server([](const QList<QByteArray>& request) -> QByteArray {
        const QByteArray known = handshake(request);
        if (!known.isEmpty())
            return known;
        return request.value(1) == "first" ? QByteArray("$2\r\nok\r\n*2147483647\r\n")
                                           : QByteArray();
    });
    QVERIFY(server.listen());
    auto client = connectTo(server.url());
    QObject context;
    std::optional<Result<Reply>> first, second;
    client->execute({"GET", "first"}, &context, [&](Result<Reply> r) { first.emplace(r); });
    client->execute({"GET", "second"}, &context, [&](Result<Reply> r) { second.emplace(r); });
    QTRY_VERIFY(first && second);
    QVERIFY2(first->ok(), qPrintable(first->ok() ? QString() : first->error().toString()));
    QCOMPARE((*first)->string, QByteArray("ok"));
    QVERIFY(!second->ok());
    QCOMPARE(second->error().kind, ErrorKind::Protocol);
}

void tst_ErrorCauses::largeButSaneRepliesPass()
{
    // A 1 MB value and a 100,000-element array (a sliding log's ZRANGE) are normal replies.
    const QByteArray big(1 << 20, 'v');
    QByteArray array = "*100000\r\n";
    for (int i = 0; i < 100000; ++i)
        array += ":" + QByteArray::number(i) + "\r\n";
    FakeRespServer server([&](const QList<QByteArray>& request) -> QByteArray {
        const QByteArray known = handshake(request);
        if (!known.isEmpty())
            return known;
        if (request.value(0) == "GET")
            return "$" + QByteArray::number(big.size()) + "\r\n" + big + "\r\n";
        return array;
    });
    QVERIFY(server.listen());
    auto client = connectTo(server.url());
    const Result<Reply> value = run(client.get(), {"GET", "k"});
    QVERIFY2(value, qPrintable(value ? QString() : value.error().toString()));
    QCOMPARE(tollgate::test::transportMismatch(*client), QString()); // read the way asked for
    QCOMPARE(value->string.size(), big.size());
    const Result<Reply> members = run(client.get(), {"ZRANGE", "k", "0", "-1"});
    QVERIFY2(members, qPrintable(members ? QString() : members.error().toString()));
    QCOMPARE(members->elements.size(), size_t(100000));
    QCOMPARE(members->elements.back().integer, qint64(99999));
}

void tst_ErrorCauses::firstCauseIsKept_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("cause");
    // A port nobody listens on: a server started and stopped again.
    RedisServer stopped;
    QVERIFY(stopped.start());
    const quint16 port = stopped.port();
    stopped.stop();
    QTest::newRow("refused") << QStringLiteral("redis://127.0.0.1:%1").arg(port)
                             << QStringLiteral("refused");
    QTest::newRow("missing CA file")
        << QStringLiteral("rediss://127.0.0.1:%1?ca=/nonexistent/ca.pem").arg(port)
        << QStringLiteral("cannot read CA file /nonexistent/ca.pem");
    QTest::newRow("missing unix socket") << QStringLiteral("unix:///nonexistent/redis.sock")
                                         << QStringLiteral("/nonexistent/redis.sock");
}

void tst_ErrorCauses::firstCauseIsKept()
{
    QFETCH(QString, url);
    QFETCH(QString, cause);
    auto client = connectTo(url);
    QVERIFY(client);
    // The command arrives after the attempt failed: it must still hear why.
    QTRY_COMPARE(client->state(), ConnectionState::Disconnected);
    const Result<Reply> result = run(client.get(), {"PING"});
    QVERIFY(!result);
    QVERIFY2(result.error().message.contains(cause, Qt::CaseInsensitive),
             qPrintable(result.error().toString()));
    QVERIFY2(result.error().kind != ErrorKind::Closed, qPrintable(result.error().toString()));
}

void tst_ErrorCauses::reconnectingNamesTheCause()
{
    RedisServer stopped;
    QVERIFY(stopped.start());
    const QString url = stopped.url();
    stopped.stop();
    auto client = connectTo(url, /*reconnect=*/true);
    QTRY_COMPARE(client->state(), ConnectionState::Reconnecting);
    const Result<Reply> result = run(client.get(), {"PING"});
    QVERIFY(!result);
    QCOMPARE(result.error().kind, ErrorKind::Closed); // fail fast while reconnecting
    QVERIFY2(result.error().message.contains(QStringLiteral("refused"), Qt::CaseInsensitive),
             qPrintable(result.error().toString()));
}

QTEST_GUILESS_MAIN(tst_ErrorCauses)
#include "tst_ErrorCauses.moc"
