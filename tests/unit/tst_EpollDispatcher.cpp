// core/redis/EpollDispatcher, the event loop of the library's I/O threads (IoThreads), on a real
// QThread given it before start() as IoThreads does (tests/support/EpollThread): what Qt code on
// that thread relies on, descriptors aside (those are tst_EpollNotifiers). Posted events and
// queued calls wake it (from other threads, many at once, from itself); QThread::quit ends exec()
// from anywhere; deleteLater deletes; QTimer fires, never early, never again while its own
// handler runs (a nested loop in it), and survives being stopped, restarted or moved between
// threads. A bug here stalls or crashes every Redis connection of the process. No latency is
// measured: timers are checked to be "not early", everything else to happen "eventually".

#include "tests/support/EpollThread.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QPointer>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

using namespace tollgate::test;

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
    void timerIsNotFiredAgainWhileItsHandlerRuns_data();
    void timerIsNotFiredAgainWhileItsHandlerRuns();
};

namespace {

// Where quitEndsExec calls QThread::quit from.
constexpr int kFromAnotherThread = 0, kFromQueuedCall = 1, kFromTimer = 2, kFromNotifier = 3;

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

void EpollDispatcherTest::timerIsNotFiredAgainWhileItsHandlerRuns_data()
{
    QTest::addColumn<int>("interval");
    QTest::newRow("10 ms") << 10;
    QTest::newRow("0 ms") << 0;
}

void EpollDispatcherTest::timerIsNotFiredAgainWhileItsHandlerRuns()
{
    QFETCH(int, interval);
    constexpr int kNestedMs = 100;
    std::atomic<int> fired{0}, depth{0}, deepest{0}, nestedTurns{-1};
    EpollThread worker;
    QVERIFY(worker.isValid());
    // Its first timeout runs a nested loop (a modal wait) for 100 ms. Qt's loops leave a timer
    // out while its handler runs (activateRef), its wait too, and deliver the rest: here a 0 ms
    // timer used to fire inside its own handler, again and again, until the stack ran out.
    worker.run([&] {
        timerOn(worker.home, interval, [&] {
            const int level = ++depth;
            deepest = std::max(deepest.load(), level);
            if (++fired == 1) {
                QEventLoop loop;
                QTimer::singleShot(kNestedMs, &loop, &QEventLoop::quit);
                const int turns = worker.turns();
                loop.exec();
                nestedTurns = worker.turns() - turns;
            }
            --depth;
        });
    });
    QTRY_VERIFY(nestedTurns.load() >= 0);
    QCOMPARE(deepest.load(), 1);
    // The nested loop slept until the one timer it had: a busy loop counts thousands of turns.
    QVERIFY2(nestedTurns.load() < 50, QByteArray::number(nestedTurns.load()));
    // And the timer goes on once its handler has returned.
    const int sofar = fired;
    QTRY_VERIFY(fired.load() >= sofar + 3);
}

QTEST_GUILESS_MAIN(EpollDispatcherTest)
#include "tst_EpollDispatcher.moc"
