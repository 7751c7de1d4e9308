// core/redis/EpollDispatcher's descriptors, on a real QThread given it before start() as
// IoThreads does (tests/support/EpollThread); its posted events and timers are tst_EpollDispatcher.
// QSocketNotifier is level-triggered without a busy loop, per type; an exception notifier hears
// the peer hang up, as in Qt's loops; one deleted by another is never activated, nor is one on a
// new socket by an event, still in the turn's batch, of the closed descriptor whose number that
// socket reuses; QTcpSocket talks, to the main thread and to itself. Every Redis connection of
// the process reads and writes through these notifiers: a bug here stalls or crashes them all.
// Things are checked to happen "eventually", and busy loops by what is counted over 100 ms.

#include "tests/support/EpollThread.h"

#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtTest>
#include <atomic>

#include <fcntl.h>
#include <unistd.h>

using namespace tollgate::test;

class EpollNotifiersTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readNotifierIsLevelTriggeredWithoutBusyLoopAndSeesHangUp();
    void writeNotifierFiresWhenWritable();
    void readAndWriteNotifiersOnOneDescriptorAreEnabledIndependently();
    void notifierDeletedByAnotherOnTheSameDescriptorIsNotActivated();
    void exceptionNotifierIsActivatedOnHangUpWithoutBusyLoop();
    void staleEventIsNotDeliveredToTheSocketReusingAClosedNumber();
    void tcpSocketTalksToAServerOnTheMainThread();
    void tcpClientAndServerOnTheThreadEchoMegabytes();
};

// ---------------------------------------------------------------- socket notifiers

void EpollNotifiersTest::readNotifierIsLevelTriggeredWithoutBusyLoopAndSeesHangUp()
{
    std::atomic<int> bytes{0}, empty{0};
    std::atomic<bool> sawEnd{false};
    QSocketNotifier* notifier = nullptr;
    EpollThread worker;
    QVERIFY(worker.isValid());
    // One byte per activation: what is left must activate it again.
    worker.run([&] {
        notifier = worker.watch(QSocketNotifier::Read, [&] {
            char byte;
            const ssize_t n = ::read(worker.pair.fd[0], &byte, 1);
            ++(n == 1 ? bytes : empty);
            if (n == 0) // the end: off, or the hang-up keeps activating it
                sawEnd = true, notifier->setEnabled(false);
        });
    });
    QTest::qWait(100);
    QCOMPARE(bytes.load() + empty.load(), 0);
    QVERIFY(worker.pair.send(5));
    QTRY_COMPARE(bytes.load(), 5);
    QTest::qWait(100); // drained: quiet (a busy loop would count thousands here)
    QCOMPARE(bytes.load(), 5);
    QVERIFY2(empty.load() <= 2, QByteArray::number(empty.load()));
    worker.pair.closeEnd(1);
    QTRY_VERIFY(sawEnd.load());
}

void EpollNotifiersTest::writeNotifierFiresWhenWritable()
{
    std::atomic<int> activations{0};
    QSocketNotifier* notifier = nullptr;
    EpollThread worker;
    QVERIFY(worker.isValid());
    worker.run([&] {
        notifier = worker.watch(QSocketNotifier::Write,
                                [&] { ++activations, notifier->setEnabled(false); });
    });
    QTRY_COMPARE(activations.load(), 1); // writable from the start
    const char chunk[4096] = {};
    while (::write(worker.pair.fd[0], chunk, sizeof chunk) > 0) {
    }
    worker.run([&] { notifier->setEnabled(true); });
    QTest::qWait(100);
    QCOMPARE(activations.load(), 1); // full: not writable
    readFrom(worker.pair.fd[1]);     // the peer reads it all
    QTRY_COMPARE(activations.load(), 2);
}

void EpollNotifiersTest::readAndWriteNotifiersOnOneDescriptorAreEnabledIndependently()
{
    std::atomic<int> reads{0}, writes{0};
    QSocketNotifier *reader = nullptr, *writer = nullptr;
    EpollThread worker;
    QVERIFY(worker.isValid());
    worker.run([&] {
        reader = worker.watch(QSocketNotifier::Read, [&] { ++reads, readFrom(worker.pair.fd[0]); });
        writer = worker.watch(QSocketNotifier::Write, [&] { ++writes, writer->setEnabled(false); });
    });
    QTRY_COMPARE(writes.load(), 1);
    QCOMPARE(reads.load(), 0);
    QVERIFY(worker.pair.send());
    QTRY_COMPARE(reads.load(), 1);
    // Read off, write on: the byte waits unread while the write notifier fires.
    worker.run([&] { reader->setEnabled(false), writer->setEnabled(true); });
    QVERIFY(worker.pair.send());
    QTRY_COMPARE(writes.load(), 2);
    QTest::qWait(100);
    QCOMPARE(reads.load(), 1);
    worker.run([&] { reader->setEnabled(true); });
    QTRY_COMPARE(reads.load(), 2);
    QCOMPARE(writes.load(), 2);
}

void EpollNotifiersTest::notifierDeletedByAnotherOnTheSameDescriptorIsNotActivated()
{
    std::atomic<int> readerRan{0}, writerRan{0};
    QPointer<QSocketNotifier> reader, writer; // used on the thread only
    EpollThread worker;
    QVERIFY(worker.isValid());
    QVERIFY(worker.pair.send()); // readable and writable: one epoll event names both
    // Whichever comes first deletes the other (valgrind sees any later touch of it).
    worker.run([&] {
        reader = worker.watch(QSocketNotifier::Read, [&] {
            ++readerRan, delete writer.data(), readFrom(worker.pair.fd[0]);
        });
        writer = worker.watch(QSocketNotifier::Write, [&] {
            ++writerRan, delete reader.data(), writer->setEnabled(false);
        });
    });
    QTRY_VERIFY(readerRan.load() + writerRan.load() >= 1);
    QTest::qWait(100);
    QCOMPARE(int(readerRan.load() > 0) + int(writerRan.load() > 0), 1);
    QVERIFY(worker.run([&] { return reader.isNull() != writer.isNull(); }));
}

void EpollNotifiersTest::exceptionNotifierIsActivatedOnHangUpWithoutBusyLoop()
{
    std::atomic<int> activations{0};
    QSocketNotifier* notifier = nullptr;
    EpollThread worker;
    QVERIFY(worker.isValid());
    // Qt's loops activate an exception notifier on a hang-up or an error too, and its handler
    // turns it off; epoll reports those whatever it is asked, so one left out ends every wait.
    worker.run([&] {
        notifier = worker.watch(QSocketNotifier::Exception,
                                [&] { ++activations, notifier->setEnabled(false); });
    });
    QVERIFY(worker.pair.send()); // readable is not exceptional
    QTest::qWait(100);
    QCOMPARE(activations.load(), 0);
    worker.pair.closeEnd(1);
    QTRY_COMPARE(activations.load(), 1);
    const int turns = worker.turns();
    QTest::qWait(100); // off: nothing ends the wait
    QCOMPARE(activations.load(), 1);
    QVERIFY2(worker.turns() - turns < 50, QByteArray::number(worker.turns() - turns));
}

void EpollNotifiersTest::staleEventIsNotDeliveredToTheSocketReusingAClosedNumber()
{
    SocketPair second, fresh; // fresh: its end 0 takes the number of a retired end 0
    std::atomic<int> ran[2] = {{0}, {0}}, freshActivations{0}, reused{-1};
    QPointer<QSocketNotifier> notifiers[2]; // used on the thread only
    EpollThread worker;
    QVERIFY(worker.isValid());
    SocketPair* const pairs[2] = {&worker.pair, &second};
    // Both readable in one turn's batch; whichever handler comes first retires the other: its
    // notifier deleted, its descriptor closed and the number given to a fresh socket (dup3 does
    // both at once, so the number is surely the same), watched for reading. Nothing is ever
    // written to that one: the retired descriptor's event, still in the batch, must not reach it.
    QVERIFY(worker.run([&] {
        for (int i = 0; i < 2; ++i) {
            const auto handler = [&, i] {
                ++ran[i], readFrom(pairs[i]->fd[0]);
                if (reused.load() >= 0)
                    return;
                const int number = pairs[1 - i]->fd[0];
                delete notifiers[1 - i].data();
                reused = ::dup3(fresh.fd[0], number, O_CLOEXEC) == number;
                fresh.closeEnd(0), fresh.fd[0] = number, pairs[1 - i]->fd[0] = -1;
                worker.watch(
                    QSocketNotifier::Read, [&] { ++freshActivations; }, number);
            };
            notifiers[i] = worker.watch(QSocketNotifier::Read, handler, pairs[i]->fd[0]);
        }
        return pairs[0]->send() && pairs[1]->send();
    }));
    QTRY_VERIFY(reused.load() >= 0);
    QCOMPARE(reused.load(), 1);
    QTest::qWait(100);
    QCOMPARE(ran[0].load() + ran[1].load(), 1);
    QCOMPARE(freshActivations.load(), 0);
}

// ---------------------------------------------------------------- QTcpSocket

void EpollNotifiersTest::tcpSocketTalksToAServerOnTheMainThread()
{
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    QObject::connect(&server, &QTcpServer::newConnection, &server, [&server] {
        QTcpSocket* peer = server.nextPendingConnection();
        QObject::connect(peer, &QTcpSocket::readyRead,
                         [peer] { peer->write(peer->readAll().toUpper()); });
    });
    const quint16 port = server.serverPort();
    QByteArray received; // used on the thread only
    std::atomic<bool> closed{false};
    QTcpSocket* client = nullptr;
    EpollThread worker;
    QVERIFY(worker.isValid());
    worker.run([&] {
        client = new QTcpSocket(worker.home);
        QObject::connect(client, &QTcpSocket::connected, [&] { client->write("hit from io"); });
        QObject::connect(client, &QTcpSocket::readyRead, [&] { received += client->readAll(); });
        QObject::connect(client, &QTcpSocket::disconnected, [&] { closed = true; });
        client->connectToHost(QHostAddress::LocalHost, port);
    });
    QTRY_COMPARE(worker.run([&] { return received; }), QByteArray("HIT FROM IO"));
    worker.run([&] { client->disconnectFromHost(); });
    QTRY_VERIFY(closed.load());
}

void EpollNotifiersTest::tcpClientAndServerOnTheThreadEchoMegabytes()
{
    constexpr qint64 kBytes = 4 << 20;
    std::atomic<qint64> echoed{0};
    EpollThread worker;
    QVERIFY(worker.isValid());
    // Megabytes each way: both sockets fill their kernel buffers and wait on write notifiers.
    QVERIFY(worker.run([&] {
        auto* server = new QTcpServer(worker.home);
        auto* client = new QTcpSocket(worker.home);
        QObject::connect(server, &QTcpServer::newConnection, [server] {
            QTcpSocket* peer = server->nextPendingConnection();
            QObject::connect(peer, &QTcpSocket::readyRead,
                             [peer] { peer->write(peer->readAll()); });
        });
        QObject::connect(client, &QTcpSocket::connected,
                         [client] { client->write(QByteArray(kBytes, 'e')); });
        QObject::connect(client, &QTcpSocket::readyRead,
                         [&echoed, client] { echoed += client->readAll().size(); });
        if (!server->listen(QHostAddress::LocalHost))
            return false;
        client->connectToHost(QHostAddress::LocalHost, server->serverPort());
        return true;
    }));
    QTRY_COMPARE_WITH_TIMEOUT(echoed.load(), kBytes, 60000);
}

QTEST_GUILESS_MAIN(EpollNotifiersTest)
#include "tst_EpollNotifiers.moc"
