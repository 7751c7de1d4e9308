#pragma once

#include <QAbstractEventDispatcher>
#include <QAtomicInt>

#include <chrono>
#include <sys/epoll.h>
#include <unordered_map>
#include <vector>

namespace tollgate {

/// The event loop of the I/O threads (IoThreads) on Linux: one epoll set that stays registered
/// between turns, an eventfd for posted events, and a short list of timers. A turn that
/// delivers one reply is one epoll_wait, where Qt's own loops (GLib or poll) rebuild their
/// descriptor set and walk their sources every turn: at one hit in flight that was ~2 µs of a
/// round trip (README "The I/O threads' event loop").
///
/// Everything Qt needs of a thread's loop works: QSocketNotifier (read, write, exception;
/// level-triggered, like Qt's), QObject timers (every type kept to the millisecond, never
/// early, never again while their handler runs), posted events and deleteLater, QThread::quit,
/// and moving objects (with their timers) between threads. Not for a GUI thread: there are no
/// window system events. Descriptors are those epoll takes (sockets, pipes, eventfds): a
/// notifier on a regular file logs a warning and never fires, where Qt's poll() calls it ready.
class EpollDispatcher : public QAbstractEventDispatcher
{
    Q_OBJECT
public:
    explicit EpollDispatcher(QObject* parent = nullptr);
    ~EpollDispatcher() override;

    /// False when the kernel refused the epoll set or the eventfd: use Qt's loop instead.
    bool isValid() const { return m_epoll >= 0 && m_wakeFd >= 0; }

    bool processEvents(QEventLoop::ProcessEventsFlags flags) override;

    void registerSocketNotifier(QSocketNotifier* notifier) override;
    void unregisterSocketNotifier(QSocketNotifier* notifier) override;

    void registerTimer(int timerId, qint64 interval, Qt::TimerType timerType,
                       QObject* object) override;
    bool unregisterTimer(int timerId) override;
    bool unregisterTimers(QObject* object) override;
    QList<TimerInfo> registeredTimers(QObject* object) const override;
    int remainingTime(int timerId) override;

    void wakeUp() override;
    void interrupt() override;

private:
    using Clock = std::chrono::steady_clock;

    // The notifiers of one descriptor, by QSocketNotifier::Type (Read, Write, Exception).
    struct Watched
    {
        QSocketNotifier* notifiers[3] = {nullptr, nullptr, nullptr};
        quint32 events = 0;     // what epoll watches for it now
        quint32 generation = 0; // in epoll_event.data: an event of a closed, reused number is stale
    };

    struct Timer
    {
        int id;
        qint64 intervalMs;
        Qt::TimerType type;
        QObject* object;
        Clock::time_point due;
        quint64 serial; // Qt reuses the ids of killed timers: this one is never reused
        bool firing = false; // its handler runs: not again in a nested loop (Qt's activateRef)
    };

    int wait(::epoll_event* events, int capacity, int timeout, bool wakeUpsOnly);
    void updateWatch(int fd, Watched& watched);
    void activateNotifiers(int fd, quint32 generation, quint32 events);
    Timer* timerWithSerial(quint64 serial);
    bool activateTimers();
    int waitMs(bool mayBlock) const;
    void drainWakeUps();

    int m_epoll = -1;
    int m_wakeFd = -1;
    QAtomicInt m_wakeUps = 0;     // set: an eventfd write is pending (other threads' wakeUp)
    bool m_wokenHere = false;     // this thread posted during the turn (its own wakeUp)
    QAtomicInt m_interrupted = 0; // interrupt(): the current processEvents returns
    std::unordered_map<int, Watched> m_watched;
    quint32 m_generation = 0;
    std::vector<Timer> m_timers; // a handful per thread: a list is the cheapest to walk
    quint64 m_timerSerial = 0;
};

} // namespace tollgate
