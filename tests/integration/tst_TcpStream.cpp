// core/redis/TcpStream against a real redis-server: it takes over a socket QTcpSocket has
// connected (aborting the QTcpSocket must not close the connection), sends a write the kernel
// cannot take at once in order with what follows it, reads a reply spread over many reads, and
// reports the end of the connection only after the replies that came before it.

#include "core/redis/TcpStream.h"
#include "tests/support/RedisServer.h"

#include <QSignalSpy>
#include <QTcpSocket>
#include <QtTest>
#include <memory>

using tollgate::TcpStream;
using tollgate::test::RedisServer;

class TcpStreamTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void adoptsAConnectedSocket();
    void refusesASocketThatIsNotConnected();
    void largeWriteLeavesInOrder();
    void endIsReportedAfterTheRepliesBeforeIt();
    void killedConnectionIsReported();

private:
    // A stream over a fresh connection to the server; what it reads is appended to `bytes`.
    std::unique_ptr<TcpStream> connectStream(QByteArray& bytes);
    // Waits until `bytes` holds `count` whole replies (or the timeout).
    static bool waitForReplies(const QByteArray& bytes, int count, int timeoutMs = 10000);

    RedisServer m_server;
};

void TcpStreamTest::initTestCase()
{
    QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
}

std::unique_ptr<TcpStream> TcpStreamTest::connectStream(QByteArray& bytes)
{
    QTcpSocket socket;
    socket.connectToHost(m_server.host(), m_server.port());
    if (!socket.waitForConnected(5000))
        return nullptr;
    std::unique_ptr<TcpStream> stream(TcpStream::adopt(&socket));
    socket.abort(); // as Connection does: Qt's descriptor closes, the connection stays
    if (stream) {
        TcpStream* raw = stream.get();
        connect(raw, &TcpStream::readyRead, raw, [raw, &bytes] {
            char chunk[64 * 1024];
            for (qint64 got; (got = raw->read(chunk, sizeof chunk)) > 0;)
                bytes.append(chunk, got);
        });
    }
    return stream;
}

bool TcpStreamTest::waitForReplies(const QByteArray& bytes, int count, int timeoutMs)
{
    const auto whole = [&] {
        qsizetype at = 0;
        for (int i = 0; i < count; ++i) {
            const qsizetype length = RedisServer::replyLength(bytes, at);
            if (length <= 0)
                return false;
            at += length;
        }
        return true;
    };
    QElapsedTimer clock;
    clock.start();
    while (!whole() && clock.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    return whole();
}

void TcpStreamTest::adoptsAConnectedSocket()
{
    QByteArray bytes;
    auto stream = connectStream(bytes);
    QVERIFY(stream);
    QVERIFY(stream->isOpen());
    QCOMPARE(stream->write(RedisServer::encodeCommand({"PING"})), qint64(14));
    QVERIFY(waitForReplies(bytes, 1));
    QCOMPARE(bytes, QByteArray("+PONG\r\n"));
}

void TcpStreamTest::refusesASocketThatIsNotConnected()
{
    QTcpSocket socket;
    QCOMPARE(TcpStream::adopt(&socket), nullptr);
}

void TcpStreamTest::largeWriteLeavesInOrder()
{
    QByteArray bytes;
    auto stream = connectStream(bytes);
    QVERIFY(stream);
    // 48 MB: more than the kernel's send buffer takes at once, so the rest waits in the stream
    // and leaves as the socket drains; the GET written behind it must not overtake it.
    QByteArray value(48 << 20, 'v');
    for (qsizetype i = 0; i < value.size(); i += 4096)
        value[i] = char('a' + (i / 4096) % 26);
    QVERIFY(stream->write(RedisServer::encodeCommand({"SET", "big", value})) > 0);
    QVERIFY2(stream->bytesToWrite() > 0, "the kernel took 48 MB at once: the test proves nothing");
    QVERIFY(stream->write(RedisServer::encodeCommand({"GET", "big"})) > 0);
    QVERIFY(waitForReplies(bytes, 2, 60000));
    QCOMPARE(stream->bytesToWrite(), qint64(0));
    QVERIFY(bytes.startsWith("+OK\r\n"));
    const QByteArray header = "$" + QByteArray::number(value.size()) + "\r\n";
    QCOMPARE(bytes.mid(5, header.size()), header);
    QVERIFY(bytes.mid(5 + header.size(), value.size()) == value);
}

void TcpStreamTest::endIsReportedAfterTheRepliesBeforeIt()
{
    QByteArray bytes;
    auto stream = connectStream(bytes);
    QVERIFY(stream);
    QSignalSpy failed(stream.get(), &TcpStream::failed);
    bool failedBeforeReplies = false;
    connect(stream.get(), &TcpStream::failed, this, [&] { failedBeforeReplies = bytes.isEmpty(); });
    // QUIT: the server answers +OK, then closes its end.
    stream->write(RedisServer::encodeCommand({"PING"}) + RedisServer::encodeCommand({"QUIT"}));
    QVERIFY(waitForReplies(bytes, 2));
    QCOMPARE(bytes, QByteArray("+PONG\r\n+OK\r\n"));
    QTRY_COMPARE(failed.size(), 1);
    QVERIFY(!failedBeforeReplies);
    QCOMPARE(failed.first().first().toString(), QStringLiteral("the server closed the connection"));
    // Once: the descriptor, readable for good at its end, is no longer watched.
    QTest::qWait(100);
    QCOMPARE(failed.size(), 1);
    QCOMPARE(stream->write("PING\r\n"), qint64(-1));
}

void TcpStreamTest::killedConnectionIsReported()
{
    QByteArray bytes;
    auto stream = connectStream(bytes);
    QVERIFY(stream);
    QSignalSpy failed(stream.get(), &TcpStream::failed);
    stream->write(RedisServer::encodeCommand({"CLIENT", "SETNAME", "victim"}));
    QVERIFY(waitForReplies(bytes, 1));
    // Every normal client but the one asking: the stream's connection.
    QCOMPARE(m_server.command({"CLIENT", "KILL", "TYPE", "normal"}), QByteArray(":1\r\n"));
    QTRY_COMPARE(failed.size(), 1);
    // Closing after the end is harmless, and so is destroying.
    stream->close();
    QVERIFY(!stream->isOpen());
}

QTEST_GUILESS_MAIN(TcpStreamTest)
#include "tst_TcpStream.moc"
