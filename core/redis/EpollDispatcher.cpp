#include "core/redis/EpollDispatcher.h"

#include <QCoreApplication>
#include <QMetaMethod>
#include <QSocketNotifier>
#include <QThread>
#include <QTimerEvent>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <unistd.h>

namespace tollgate {

namespace {

constexpr int kMaxEventsPerTurn = 64;

int typeIndex(QSocketNotifier::Type type)
{
    return type == QSocketNotifier::Read ? 0 : type == QSocketNotifier::Write ? 1 : 2;
}

// What epoll hands back with an event: the descriptor, and the generation of the descriptor
// that had that number when it was watched (0: the eventfd).
quint64 epollData(int fd, quint32 generation)
{
    return (quint64(generation) << 32) | quint32(fd);
}

void activate(QSocketNotifier* notifier)
{
    QEvent event(QEvent::SockAct);
    QCoreApplication::sendEvent(notifier, &event);
}

} // namespace

EpollDispatcher::EpollDispatcher(QObject* parent)
    : QAbstractEventDispatcher(parent), m_epoll(::epoll_create1(EPOLL_CLOEXEC)),
      m_wakeFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    if (!isValid())
        return;
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = epollData(m_wakeFd, 0);
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wakeFd, &event) != 0) {
        ::close(m_wakeFd);
        m_wakeFd = -1;
    }
}

EpollDispatcher::~EpollDispatcher()
{
    if (m_wakeFd >= 0)
        ::close(m_wakeFd);
    if (m_epoll >= 0)
        ::close(m_epoll);
}

bool EpollDispatcher::processEvents(QEventLoop::ProcessEventsFlags flags)
{
    m_interrupted.storeRelaxed(0);
    m_wokenHere = false; // what this thread posts from here on keeps the wait below short
    Q_EMIT awake();
    QCoreApplication::sendPostedEvents();

    const bool mayBlock = flags.testFlag(QEventLoop::WaitForMoreEvents);
    int timeout = waitMs(mayBlock);
    const bool blocking = timeout != 0;
    static const QMetaMethod aboutToBlockSignal =
        QMetaMethod::fromSignal(&QAbstractEventDispatcher::aboutToBlock);
    if (blocking && isSignalConnected(aboutToBlockSignal)) {
        Q_EMIT aboutToBlock();
        // Asked again: a handler may have posted (on this thread that sets only m_wokenHere)
        // or started a timer.
        timeout = waitMs(mayBlock);
    }
    epoll_event events[kMaxEventsPerTurn];
    const int ready = wait(events, kMaxEventsPerTurn, timeout,
                           flags.testFlag(QEventLoop::ExcludeSocketNotifiers));
    if (blocking)
        Q_EMIT awake();

    bool handled = false;
    for (int i = 0; i < ready && !m_interrupted.loadRelaxed(); ++i) {
        const int fd = int(quint32(events[i].data.u64));
        if (fd == m_wakeFd)
            drainWakeUps();
        else
            activateNotifiers(fd, quint32(events[i].data.u64 >> 32), events[i].events);
        handled = true;
    }
    if (!m_interrupted.loadRelaxed())
        handled = activateTimers() || handled;
    return handled;
}

int EpollDispatcher::wait(epoll_event* events, int capacity, int timeout, bool wakeUpsOnly)
{
    if (wakeUpsOnly) {
        // Sockets left out of the wait, not only of the dispatch: a ready one would end every
        // wait of the epoll set at once (a nested loop that excludes them would spin).
        pollfd wake{m_wakeFd, POLLIN, 0};
        if (::poll(&wake, 1, timeout) <= 0)
            return 0;
        events[0].events = EPOLLIN;
        events[0].data.u64 = epollData(m_wakeFd, 0);
        return 1;
    }
    const int ready = ::epoll_wait(m_epoll, events, capacity, timeout);
    return ready < 0 ? 0 : ready; // EINTR: a signal; the caller turns again
}

int EpollDispatcher::waitMs(bool mayBlock) const
{
    if (!mayBlock || m_wokenHere || m_interrupted.loadRelaxed())
        return 0;
    Clock::time_point next = Clock::time_point::max();
    for (const Timer& timer : m_timers)
        if (!timer.firing) // a nested loop in its handler waits for the others only
            next = std::min(next, timer.due);
    if (next == Clock::time_point::max())
        return -1;
    const auto left = next - Clock::now();
    if (left <= Clock::duration::zero())
        return 0;
    // Rounded up: a timer never fires early, and the wait never ends just before it is due.
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return int(std::min<qint64>(ms, INT_MAX));
}

void EpollDispatcher::drainWakeUps()
{
    eventfd_t count = 0;
    (void)::eventfd_read(m_wakeFd, &count);
    // Only now: while the flag is set, a write is pending, so a wakeUp that skips its own
    // write still ends the next wait. What was posted before this runs at the next turn.
    (void)m_wakeUps.fetchAndStoreOrdered(0); // a full barrier, as Qt's testAndSetRelease(1, 0) is
                                             // on x86: the loads of `exit` below come after it
}

void EpollDispatcher::wakeUp()
{
    // On its own thread the loop is running, not waiting: no system call needed.
    if (QThread::currentThread() == thread()) {
        m_wokenHere = true;
        return;
    }
    if (m_wakeUps.testAndSetAcquire(0, 1))
        (void)::eventfd_write(m_wakeFd, 1); // else one is pending already
}

void EpollDispatcher::interrupt()
{
    m_interrupted.storeRelaxed(1);
    wakeUp();
}

// ---------------------------------------------------------------- socket notifiers

void EpollDispatcher::registerSocketNotifier(QSocketNotifier* notifier)
{
    const int fd = int(notifier->socket());
    Watched& watched = m_watched[fd];
    watched.notifiers[typeIndex(notifier->type())] = notifier;
    // Told to the kernel even when the mask looks unchanged: a descriptor closed while watched
    // leaves the epoll set by itself, and its number may be back as a new socket.
    watched.events = 0;
    updateWatch(fd, watched);
}

void EpollDispatcher::unregisterSocketNotifier(QSocketNotifier* notifier)
{
    const int fd = int(notifier->socket());
    const auto it = m_watched.find(fd);
    if (it == m_watched.end())
        return;
    QSocketNotifier*& slot = it->second.notifiers[typeIndex(notifier->type())];
    if (slot != notifier)
        return;
    slot = nullptr;
    updateWatch(fd, it->second);
    if (it->second.events == 0)
        m_watched.erase(it);
}

void EpollDispatcher::updateWatch(int fd, Watched& watched)
{
    const quint32 wanted = (watched.notifiers[0] ? quint32(EPOLLIN) : 0u) |
                           (watched.notifiers[1] ? quint32(EPOLLOUT) : 0u) |
                           (watched.notifiers[2] ? quint32(EPOLLPRI) : 0u);
    if (wanted == watched.events && wanted != 0)
        return;
    if (wanted == 0) {
        // Gone from the set (an error only when the descriptor is closed already: then it is).
        (void)::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
        watched.events = 0;
        return;
    }
    epoll_event event{};
    event.events = wanted;
    event.data.u64 = epollData(fd, watched.generation);
    if (::epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &event) != 0) {
        // Not in the set: a new descriptor under this number (or the first notifier). A new
        // generation: events of the one it replaces, still in this turn's batch, are stale.
        if (++m_generation == 0)
            ++m_generation; // 0 is the eventfd's
        watched.generation = m_generation;
        event.data.u64 = epollData(fd, watched.generation);
        if (errno != ENOENT || ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event) != 0) {
            qWarning("EpollDispatcher: cannot watch descriptor %d (errno %d)", fd, errno);
            watched.events = 0;
            return;
        }
    }
    watched.events = wanted;
}

void EpollDispatcher::activateNotifiers(int fd, quint32 generation, quint32 events)
{
    // Looked up before each one: the one before may have disabled or deleted the next.
    static constexpr quint32 kWakes[3] = {EPOLLIN | EPOLLHUP | EPOLLERR,
                                          EPOLLOUT | EPOLLHUP | EPOLLERR,
                                          EPOLLPRI | EPOLLHUP | EPOLLERR};
    for (int type = 0; type < 3; ++type) {
        if (!(events & kWakes[type]))
            continue;
        const auto it = m_watched.find(fd);
        if (it == m_watched.end() || it->second.generation != generation)
            return; // gone, or the number now names another descriptor: the event is stale
        if (QSocketNotifier* notifier = it->second.notifiers[type])
            activate(notifier);
    }
}

// ---------------------------------------------------------------- timers

void EpollDispatcher::registerTimer(int timerId, qint64 interval, Qt::TimerType timerType,
                                    QObject* object)
{
    interval = std::max<qint64>(0, interval);
    m_timers.push_back({timerId, interval, timerType, object,
                        Clock::now() + std::chrono::milliseconds(interval), ++m_timerSerial});
}

bool EpollDispatcher::unregisterTimer(int timerId)
{
    const auto it = std::find_if(m_timers.begin(), m_timers.end(),
                                 [timerId](const Timer& t) { return t.id == timerId; });
    if (it == m_timers.end())
        return false;
    m_timers.erase(it);
    return true;
}

bool EpollDispatcher::unregisterTimers(QObject* object)
{
    const auto before = m_timers.size();
    m_timers.erase(std::remove_if(m_timers.begin(), m_timers.end(),
                                  [object](const Timer& t) { return t.object == object; }),
                   m_timers.end());
    return m_timers.size() != before;
}

QList<QAbstractEventDispatcher::TimerInfo> EpollDispatcher::registeredTimers(QObject* object) const
{
    QList<TimerInfo> timers;
    for (const Timer& t : m_timers)
        if (t.object == object)
            timers.append(TimerInfo(t.id, int(std::min<qint64>(t.intervalMs, INT_MAX)), t.type));
    return timers;
}

int EpollDispatcher::remainingTime(int timerId)
{
    for (const Timer& t : m_timers) {
        if (t.id != timerId)
            continue;
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(t.due - Clock::now());
        return int(std::clamp<qint64>(left.count(), 0, INT_MAX));
    }
    return -1;
}

EpollDispatcher::Timer* EpollDispatcher::timerWithSerial(quint64 serial)
{
    const auto it = std::find_if(m_timers.begin(), m_timers.end(),
                                 [serial](const Timer& t) { return t.serial == serial; });
    return it == m_timers.end() ? nullptr : &*it;
}

bool EpollDispatcher::activateTimers()
{
    if (m_timers.empty())
        return false;
    const Clock::time_point now = Clock::now();
    // The timers due now, soonest first, taken before any fires: a timer started by one of
    // them (even with interval 0) waits for the next turn, as in Qt's loops.
    std::vector<std::pair<Clock::time_point, quint64>> due;
    for (const Timer& t : m_timers)
        if (t.due <= now && !t.firing)
            due.emplace_back(t.due, t.serial);
    std::sort(due.begin(), due.end());
    for (const auto& [when, serial] : due) {
        // Still there (a handler may kill any timer, and start another under the same id).
        Timer* it = timerWithSerial(serial);
        if (!it)
            continue;
        const int id = it->id;
        // The next one a whole interval after this one was due, or after now when late: a
        // late timer fires once, not once per interval it missed.
        const std::chrono::milliseconds interval(it->intervalMs);
        it->due += interval;
        if (it->due < now || (interval.count() > 0 && it->due == now))
            it->due = now + interval;
        QObject* object = it->object;
        it->firing = true;
        QTimerEvent event(id);
        QCoreApplication::sendEvent(object, &event);
        // Looked up again: the handler may have killed it, or added timers (the vector moved).
        if (Timer* after = timerWithSerial(serial))
            after->firing = false;
        if (m_interrupted.loadRelaxed())
            break;
    }
    return !due.empty();
}

} // namespace tollgate
