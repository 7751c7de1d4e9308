#pragma once

// A real QThread running core/redis/EpollDispatcher, as IoThreads runs it, and the small tools
// the tests of that dispatcher share (tst_EpollDispatcher, tst_EpollNotifiers): a socketpair to
// watch, a read that drains a descriptor, a timer in one call.

#include <QAbstractEventDispatcher>
#include <QObject>
#include <QSocketNotifier>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <functional>
#include <limits>
#include <type_traits>

namespace tollgate::test {

// Reads what is there, up to `max` bytes; returns how many (0 also when nothing was there).
qint64 readFrom(int fd, qint64 max = std::numeric_limits<qint64>::max());

// A non-blocking AF_UNIX stream socketpair: end 0 is watched on the thread, end 1 is the peer.
// Both ends are closed with the object.
struct SocketPair
{
    int fd[2] = {-1, -1};
    SocketPair();
    ~SocketPair();
    SocketPair(const SocketPair&) = delete;
    SocketPair& operator=(const SocketPair&) = delete;
    void closeEnd(int end);
    // The peer writes `bytes` bytes in one go.
    bool send(int bytes = 1) const;
};

// A QThread running EpollDispatcher, set before start() as IoThreads does, with a socketpair
// for the test; quit and joined at scope exit. Objects made on it are parented to `home` and
// deleted on it when it finishes: declare what their handlers touch before the EpollThread.
class EpollThread
{
public:
    EpollThread();
    ~EpollThread();
    EpollThread(const EpollThread&) = delete;
    EpollThread& operator=(const EpollThread&) = delete;

    // The thread runs an EpollDispatcher that made its epoll set and eventfd; the pair is open.
    bool isValid() const;
    QAbstractEventDispatcher* dispatcher() const { return thread.eventDispatcher(); }

    // Runs `f` on the thread, waits for it and returns its result.
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
    // Queues `f` to the thread (from any thread, the thread itself included).
    template <typename F> void post(F f)
    {
        QMetaObject::invokeMethod(home, f, Qt::QueuedConnection);
    }
    // A notifier calling `slot`, on the test's end of the pair unless told; call on the thread.
    QSocketNotifier* watch(QSocketNotifier::Type type, std::function<void()> slot, int fd = -1);

    // Whether the thread ends (by itself) within 10 s.
    bool ends();
    // QThread::quit() from here: whether that ended the thread (if not, it is kicked out).
    bool quit();

    // How many turns the loop has begun (its awake() signals: one or two a turn). A loop that
    // sleeps counts a few in 100 ms, a busy one thousands.
    int turns() const { return m_turns.load(); }

private:
    SocketPair m_kick;
    std::atomic<int> m_turns{0};

public:
    SocketPair pair;
    QThread thread;
    QObject* const home = new QObject;
};

// A started timer on the current thread calling `slot`.
QTimer* timerOn(QObject* parent, int interval, std::function<void()> slot,
                Qt::TimerType type = Qt::PreciseTimer, bool singleShot = false);

} // namespace tollgate::test
