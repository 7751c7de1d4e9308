// core/redis/EpollDispatcher, the event loop of the library's I/O threads (IoThreads), on a real
// QThread given it before start() as IoThreads does: what Qt code on that thread relies on.
// Posted events and queued calls wake it (from other threads, many at once, from itself);
// QThread::quit ends exec() from anywhere; deleteLater deletes; QTimer fires, never early, and
// survives being stopped, restarted or moved between threads; QSocketNotifier is level-triggered
// without a busy loop, per type, and one deleted by another is never activated; QTcpSocket talks.
// A bug here stalls or crashes every Redis connection of the process. No latency is measured:
// timers are checked to be "not early", everything else to happen "eventually".

#include "core/redis/EpollDispatcher.h"

#include <QPointer>
#include <QSocketNotifier>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtTest>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include <sys/socket.h>
#include <unistd.h>

using tollgate::EpollDispatcher;

class EpollDispatcherTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void postedCallsRunOnTheThread();
    void aCallOrATimerFromAboutToBlockRuns();
    void quitEndsExec_data();
    void quitEndsExec();
    void deleteLaterDeletesTheObject();
    void singleShotTimerFiresOnceAndNotEarly_data();
    void singleShotTimerFiresOnceAndNotEarly();
    void repeatingTimerFiresNeverEarlyUntilStoppedInItsTimeout_data();
    void repeatingTimerFiresNeverEarlyUntilStoppedInItsTimeout();
    void zeroTimerKeepsFiringAndLetsEverythingElseThrough();
    void timerRestartedUnderItsIdByAnotherTimerWaitsItsInterval();
    void remainingTimeIsSane();
    void timerMovesWithItsObjectToAnotherThreadAndBack();
    void readNotifierIsLevelTriggeredWithoutBusyLoopAndSeesHangUp();
    void writeNotifierFiresWhenWritable();
    void readAndWriteNotifiersOnOneDescriptorAreEnabledIndependently();
    void notifierDeletedByAnotherOnTheSameDescriptorIsNotActivated();
    void tcpSocketTalksToAServerOnTheMainThread();
    void tcpClientAndServerOnTheThreadEchoMegabytes();
};

namespace {

// Where quitEndsExec calls QThread::quit from.
constexpr int kFromAnotherThread = 0, kFromQueuedCall = 1, kFromTimer = 2, kFromNotifier = 3;

/// Reads what is there, up to `max` bytes; returns how many (0 also when nothing was there).
qint64 readFrom(int fd, qint64 max = std::numeric_limits<qint64>::max())
{
    char buffer[4096];
    qint64 total = 0, n = 0;
    while (total < max && (n = ::read(fd, buffer, size_t(std::min<qint64>(4096, max - total)))) > 0)
        total += n;
    return total;
}

/// A non-blocking AF_UNIX stream socketpair: end 0 is watched on the thread, end 1 is the peer.
struct SocketPair
{
    int fd[2] = {-1, -1};
    SocketPair() { (void)::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd); }
    ~SocketPair() { closeEnd(0), closeEnd(1); }
    void closeEnd(int end) { (void)(fd[end] >= 0 && ::close(fd[end])), fd[end] = -1; }
    /// The peer writes `bytes` bytes in one go.
    bool send(int bytes = 1) const
    {
        return ::write(fd[1], QByteArray(bytes, 'x').constData(), size_t(bytes)) == bytes;
    }
};

/// A QThread running EpollDispatcher, set before start() as IoThreads does, with a socketpair
/// for the test; quit and joined at scope exit. Objects made on it are parented to `home` and
/// deleted on it when it finishes: declare what their handlers touch before the EpollThread.
class EpollThread
{
public:
    EpollThread()
    {
        auto* dispatcher = new EpollDispatcher;
        if (dispatcher->isValid())
            thread.setEventDispatcher(dispatcher);
        else
            delete dispatcher; // then the thread runs Qt's loop, and isValid() says so
        home->moveToThread(&thread);
        QObject::connect(&thread, &QThread::finished, home, &QObject::deleteLater);
        thread.start();
        // The way out when a quit() is lost: a byte on the kick pair ends the loop's wait.
        run([this] {
            watch(
                QSocketNotifier::Read, [this] { readFrom(m_kick.fd[0]); }, m_kick.fd[0]);
        });
    }
    ~EpollThread() { (void)(thread.isFinished() || quit()); }

    /// The thread runs an EpollDispatcher that made its epoll set and eventfd; the pair is open.
    bool isValid() const { return qobject_cast<EpollDispatcher*>(dispatcher()) && pair.fd[1] >= 0; }
    QAbstractEventDispatcher* dispatcher() const { return thread.eventDispatcher(); }

    /// Runs `f` on the thread, waits for it and returns its result.
    template <typename F> auto run(F f) -> decltype(f())
    {
        if constexpr (std::is_void_v<decltype(f())>) {
            QMetaObject::invokeMethod(home, f, Qt::BlockingQueuedConnection);
        } else {
            decltype(f()) result{};
            QMetaObject::invokeMethod(
                home, [&] { result = f(); }, Qt::BlockingQueuedConnection);
            return result;
        }
    }
    /// Queues `f` to the thread (from any thread, the thread itself included).
    template <typename F> void post(F f)
    {
        QMetaObject::invokeMethod(home, f, Qt::QueuedConnection);
    }
    /// A notifier calling `slot`, on the test's end of the pair unless told; call on the thread.
    QSocketNotifier* watch(QSocketNotifier::Type type, std::function<void()> slot, int fd = -1)
    {
        auto* notifier = new QSocketNotifier(fd >= 0 ? fd : pair.fd[0], type, home);
        QObject::connect(notifier, &QSocketNotifier::activated, std::move(slot));
        return notifier;
    }

    /// Whether the thread ends (by itself) within 10 s.
    bool ends() { return thread.wait(QDeadlineTimer(10000)); }
    /// QThread::quit() from here: whether that ended the thread (if not, it is kicked out).
    bool quit()
    {
        thread.quit();
        return ends() || ((void)::write(m_kick.fd[1], "k", 1), thread.wait(), false);
    }

private:
    SocketPair m_kick;

public:
    SocketPair pair;
    QThread thread;
    QObject* const home = new QObject;
};

/// A started timer on the current thread calling `slot`.
QTimer* timerOn(QObject* parent, int interval, std::function<void()> slot,
                Qt::TimerType type = Qt::PreciseTimer, bool singleShot = false)
{
    auto* timer = new QTimer(parent);
    timer->setTimerType(type);
    timer->setSingleShot(singleShot);
    QObject::connect(timer, &QTimer::timeout, std::move(slot));
    timer->start(interval);
    return timer;
}

} // namespace

// ---------------------------------------------------------------- posted events, quit, deleteLater

void EpollDispatcherTest::postedCallsRunOnTheThread()
{
    constexpr int kPosters = 4, kEach = 5000, kChain = 1000;
    std::atomic<QThread*> ranOn{nullptr};
    std::atomic<int> calls{0}, burst{0}, chain{0};
    std::function<void()> next;
    EpollThread worker;
    QVERIFY(worker.isValid());
    QTest::qWait(20); // asleep in epoll_wait, with no timer: only wakeUp() gets a call there
    worker.post([&] { ranOn = QThread::currentThread(); });
    QTRY_COMPARE(ranOn.load(), &worker.thread);
    // Many at once, from several threads racing on the wake-up.
    std::vector<std::thread> posters;
    for (int p = 0; p < kPosters; ++p)
        posters.emplace_back([&] {
            for (int i = 0; i < kEach; ++i)
                worker.post([&] { ++calls; });
        });
    for (std::thread& poster : posters)
        poster.join();
    QTRY_COMPARE(calls.load(), kPosters * kEach);
    // From the thread to itself: a burst at once, and a chain where each call queues the next.
    next = [&] { ++chain < kChain ? worker.post(next) : void(); };
    worker.run([&] {
        for (int i = 0; i < kEach; ++i)
            worker.post([&] { ++burst; });
        worker.post(next);
    });
    QTRY_COMPARE(burst.load(), kEach);
    QTRY_COMPARE(chain.load(), kChain);
    // Its wake-ups of itself do not swallow one from outside afterwards.
    QTest::qWait(20);
    worker.post([&] { ranOn = nullptr; });
    QTRY_COMPARE(ranOn.load(), nullptr);
}

void EpollDispatcherTest::aCallOrATimerFromAboutToBlockRuns()
{
    std::atomic<int> blocks{0};
    std::atomic<bool> queuedThere{false}, timedThere{false};
    EpollThread worker;
    QVERIFY(worker.isValid());
    // Code that flushes its work "when the loop goes idle" connects to aboutToBlock and may
    // queue a call there, or start a timer: the wait that follows must not oversleep either.
    worker.run([&] {
        QObject::connect(worker.dispatcher(), &QAbstractEventDispatcher::aboutToBlock, worker.home,
                         [&] {
                             const int block = blocks++;
                             if (block == 0)
                                 worker.post([&] { queuedThere = true; });
                             else if (block == 1)
                                 QTimer::singleShot(10, worker.home, [&] { timedThere = true; });
                         });
    });
    QTRY_VERIFY(queuedThere.load());
    QTRY_VERIFY(timedThere.load());
}

void EpollDispatcherTest::quitEndsExec_data()
{
    QTest::addColumn<int>("from");
    QTest::newRow("from another thread") << kFromAnotherThread;
    QTest::newRow("from a queued call") << kFromQueuedCall;
    QTest::newRow("from a timer") << kFromTimer;
    QTest::newRow("from a socket notifier") << kFromNotifier;
}

void EpollDispatcherTest::quitEndsExec()
{
    QFETCH(int, from);
    EpollThread worker;
    QVERIFY(worker.isValid());
    const auto quit = [] { QThread::currentThread()->quit(); };
    if (from == kFromAnotherThread) {
        QTest::qWait(20); // asleep in epoll_wait without a timeout
        QVERIFY(worker.quit());
        return;
    }
    worker.run([&] {
        if (from == kFromQueuedCall)
            worker.post(quit);
        else if (from == kFromTimer)
            QTimer::singleShot(10, worker.home, quit);
        else
            worker.watch(QSocketNotifier::Read, quit);
    });
    QVERIFY(worker.pair.send());
    QVERIFY(worker.ends());
}

void EpollDispatcherTest::deleteLaterDeletesTheObject()
{
    QPointer<QObject> fromHere, fromThere; // used on the thread only
    EpollThread worker;
    QVERIFY(worker.isValid());
    QObject* raw = worker.run([&] {
        fromThere = new QObject(worker.home);
        fromThere->deleteLater();
        return fromHere = new QObject(worker.home);
    });
    raw->deleteLater();
    QTRY_VERIFY(worker.run([&] { return fromHere.isNull() && fromThere.isNull(); }));
}

// ---------------------------------------------------------------- timers

void EpollDispatcherTest::singleShotTimerFiresOnceAndNotEarly_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<bool>("staticLambda");
    QTest::newRow("precise") << int(Qt::PreciseTimer) << false;
    QTest::newRow("coarse") << int(Qt::CoarseTimer) << false;
    QTest::newRow("very coarse") << int(Qt::VeryCoarseTimer) << false;
    QTest::newRow("QTimer::singleShot, lambda") << int(Qt::CoarseTimer) << true;
}

void EpollDispatcherTest::singleShotTimerFiresOnceAndNotEarly()
{
    QFETCH(int, type);
    QFETCH(bool, staticLambda);
    constexpr int kInterval = 100;
    std::atomic<int> fired{0}, elsewhere{0};
    std::atomic<qint64> firedAfter{-1};
    QElapsedTimer clock;
    EpollThread worker;
    QVERIFY(worker.isValid());
    const auto timeout = [&] {
        elsewhere += QThread::currentThread() != &worker.thread;
        fired++ == 0 ? firedAfter = clock.elapsed() : 0;
    };
    worker.run([&] {
        clock.start();
        if (staticLambda)
            QTimer::singleShot(kInterval, Qt::TimerType(type), worker.home, timeout);
        else
            timerOn(worker.home, kInterval, timeout, Qt::TimerType(type), true);
    });
    QTRY_COMPARE(fired.load(), 1);
    QVERIFY2(firedAfter >= kInterval, QByteArray::number(firedAfter.load()));
    QTest::qWait(3 * kInterval);
    QCOMPARE(fired.load(), 1);
    QCOMPARE(elsewhere.load(), 0);
}

void EpollDispatcherTest::repeatingTimerFiresNeverEarlyUntilStoppedInItsTimeout_data()
{
    QTest::addColumn<int>("interval");
    QTest::newRow("0 ms") << 0;
    QTest::newRow("20 ms") << 20;
}

void EpollDispatcherTest::repeatingTimerFiresNeverEarlyUntilStoppedInItsTimeout()
{
    QFETCH(int, interval);
    constexpr int kTimes = 5;
    std::atomic<int> fired{0};
    std::atomic<qint64> lastAfter{-1};
    QElapsedTimer clock;
    QTimer* timer = nullptr;
    EpollThread worker;
    QVERIFY(worker.isValid());
    worker.run([&] {
        clock.start();
        timer = timerOn(worker.home, interval, [&] {
            if (++fired == kTimes)
                lastAfter = clock.elapsed(), timer->stop();
        });
    });
    QTRY_COMPARE(fired.load(), kTimes);
    // Each one at least an interval after the one before was due.
    QVERIFY2(lastAfter >= kTimes * interval, QByteArray::number(lastAfter.load()));
    QTest::qWait(100);
    QCOMPARE(fired.load(), kTimes);
    QVERIFY(worker.run([&] { return worker.dispatcher()->registeredTimers(timer).isEmpty(); }));
}

void EpollDispatcherTest::zeroTimerKeepsFiringAndLetsEverythingElseThrough()
{
    std::atomic<int> spins{0};
    std::atomic<bool> queued{false}, timed{false}, notified{false};
    EpollThread worker;
    QVERIFY(worker.isValid());
    worker.run([&] {
        timerOn(worker.home, 0, [&] { ++spins; });
        QTimer::singleShot(30, worker.home, [&] { timed = true; });
        worker.watch(QSocketNotifier::Read, [&] { notified = readFrom(worker.pair.fd[0]) > 0; });
    });
    QTRY_VERIFY(spins.load() > 100);
    worker.post([&] { queued = true; });
    QVERIFY(worker.pair.send());
    QTRY_VERIFY(queued.load() && notified.load() && timed.load());
    const int sofar = spins;
    QTRY_VERIFY(spins.load() > sofar);
}

void EpollDispatcherTest::timerRestartedUnderItsIdByAnotherTimerWaitsItsInterval()
{
    constexpr int kLater = 200;
    std::atomic<int> oldId{0}, newId{0}, secondFired{0};
    std::atomic<qint64> secondAfter{-1};
    QElapsedTimer clock;
    QTimer *first = nullptr, *second = nullptr;
    EpollThread worker;
    QVERIFY(worker.isValid());
    worker.run([&] {
        // Both due in one turn; the first restarts the second: Qt kills it and starts a timer,
        // of the same object, that gets the id just freed. That one is not due in this turn.
        first = timerOn(worker.home, 10, [&] {
            first->stop(), second->start(kLater), clock.start(), newId = second->timerId();
        });
        second = timerOn(worker.home, 10, [&] {
            secondFired++ == 0 ? secondAfter = clock.isValid() ? clock.elapsed() : -2 : 0;
        });
        oldId = second->timerId();
        QThread::msleep(30);
    });
    QTRY_VERIFY(secondFired.load() >= 1);
    QCOMPARE(newId.load(), oldId.load()); // else Qt changed, and this tests less
    QVERIFY2(secondAfter >= kLater, QByteArray::number(secondAfter.load()));
}

void EpollDispatcherTest::remainingTimeIsSane()
{
    EpollThread worker;
    QVERIFY(worker.isValid());
    const QList<int> left = worker.run([&] {
        QTimer* timer = timerOn(worker.home, 1000, [] {});
        QList<int> left{timer->remainingTime()};
        QThread::msleep(200);
        left << timer->remainingTime();
        timer->start(10);
        QThread::msleep(30); // overdue while the thread is busy: 0, not negative
        left << timer->remainingTime();
        const int id = timer->timerId();
        timer->stop(); // stopped: -1, also from the dispatcher
        return left << timer->remainingTime() << worker.dispatcher()->remainingTime(id);
    });
    QVERIFY2(left[0] > 0 && left[0] <= 1000, QByteArray::number(left[0]));
    QVERIFY2(left[1] >= 0 && left[1] <= 800, QByteArray::number(left[1]));
    QCOMPARE(left.mid(2), QList<int>({0, -1, -1}));
}

void EpollDispatcherTest::timerMovesWithItsObjectToAnotherThreadAndBack()
{
    std::atomic<int> onWorker{0}, onMain{0}, elsewhere{0};
    QThread* const mainThread = QThread::currentThread();
    QTimer* timer = nullptr;
    EpollThread worker;
    QVERIFY(worker.isValid());
    worker.run([&] {
        timer = timerOn(nullptr, 10, [&] { // no parent: it moves
            QThread* const on = QThread::currentThread();
            ++(on != timer->thread() ? elsewhere : on == mainThread ? onMain : onWorker);
        });
    });
    QTRY_VERIFY(onWorker.load() >= 3);
    // Away (moveToThread runs where the object lives): the dispatcher lets go of its timer.
    QVERIFY(worker.run([&] {
        timer->moveToThread(mainThread);
        return worker.dispatcher()->registeredTimers(timer).isEmpty();
    }));
    const int workerFires = onWorker;
    QTRY_VERIFY(onMain.load() >= 3);
    QCOMPARE(onWorker.load(), workerFires);
    // And back: the dispatcher takes it over again.
    timer->moveToThread(&worker.thread);
    const int mainFires = onMain;
    QTRY_VERIFY(onWorker.load() >= workerFires + 3);
    QCOMPARE(onMain.load(), mainFires);
    QCOMPARE(elsewhere.load(), 0);
    QCOMPARE(worker.run([&] { return worker.dispatcher()->registeredTimers(timer).size(); }), 1);
    worker.run([&] { delete timer; });
}

// ---------------------------------------------------------------- socket notifiers

void EpollDispatcherTest::readNotifierIsLevelTriggeredWithoutBusyLoopAndSeesHangUp()
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

void EpollDispatcherTest::writeNotifierFiresWhenWritable()
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

void EpollDispatcherTest::readAndWriteNotifiersOnOneDescriptorAreEnabledIndependently()
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

void EpollDispatcherTest::notifierDeletedByAnotherOnTheSameDescriptorIsNotActivated()
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

// ---------------------------------------------------------------- QTcpSocket

void EpollDispatcherTest::tcpSocketTalksToAServerOnTheMainThread()
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

void EpollDispatcherTest::tcpClientAndServerOnTheThreadEchoMegabytes()
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

QTEST_GUILESS_MAIN(EpollDispatcherTest)
#include "tst_EpollDispatcher.moc"
