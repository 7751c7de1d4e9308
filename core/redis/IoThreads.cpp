#include "core/redis/IoThreads.h"

#include "core/redis/Transport.h"
#ifdef TOLLGATE_LINUX_IO
#include "core/redis/EpollDispatcher.h"
#endif

#include <QMutex>
#include <algorithm>
#include <memory>
#include <vector>

namespace tollgate {

namespace {

struct Slot
{
    std::unique_ptr<QThread> thread;
    int clients = 0;
};

QMutex& poolMutex()
{
    static QMutex mutex;
    return mutex;
}

std::vector<Slot>& pool()
{
    static std::vector<Slot> slots;
    return slots;
}

} // namespace

int IoThreads::limit()
{
    bool ok = false;
    const int configured = qEnvironmentVariableIntValue("TOLLGATE_IO_THREADS", &ok);
    return ok && configured >= 1 ? configured : std::max(1, QThread::idealThreadCount());
}

QAbstractEventDispatcher* IoThreads::newDispatcher()
{
#ifdef TOLLGATE_LINUX_IO
    if (TransportSwitches::fromEnvironment().eventLoop == EventLoop::Epoll) {
        auto dispatcher = std::make_unique<EpollDispatcher>();
        if (dispatcher->isValid())
            return dispatcher.release();
    }
#endif
    return nullptr;
}

QThread* IoThreads::acquire()
{
    QMutexLocker lock(&poolMutex());
    std::vector<Slot>& slots = pool();
    auto least = std::min_element(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
        return a.clients < b.clients;
    });
    if (least == slots.end() || (least->clients > 0 && int(slots.size()) < limit())) {
        Slot slot;
        slot.thread = std::make_unique<QThread>();
        slot.thread->setObjectName(QStringLiteral("redis-io-%1").arg(slots.size()));
        // Else (TOLLGATE_EVENT_LOOP=qt, or no epoll set) the thread makes Qt's loop at start.
        if (QAbstractEventDispatcher* dispatcher = newDispatcher())
            slot.thread->setEventDispatcher(dispatcher); // the thread owns it
        slot.thread->start();
        slots.push_back(std::move(slot));
        least = slots.end() - 1;
    }
    ++least->clients;
    return least->thread.get();
}

EventLoop IoThreads::eventLoopOf(QThread* thread)
{
#ifdef TOLLGATE_LINUX_IO
    // What the thread runs, not what was asked: an EpollDispatcher that could not be made
    // leaves the thread on Qt's loop.
    if (qobject_cast<EpollDispatcher*>(thread->eventDispatcher()))
        return EventLoop::Epoll;
#else
    Q_UNUSED(thread)
#endif
    return EventLoop::Qt;
}

void IoThreads::release(QThread* thread)
{
    std::unique_ptr<QThread> stopping;
    {
        QMutexLocker lock(&poolMutex());
        std::vector<Slot>& slots = pool();
        auto slot = std::find_if(slots.begin(), slots.end(),
                                 [thread](const Slot& s) { return s.thread.get() == thread; });
        if (slot == slots.end() || --slot->clients > 0)
            return;
        stopping = std::move(slot->thread);
        slots.erase(slot);
    }
    // Outside the lock: the thread may still be running deferred deletes of its last client.
    stopping->quit();
    if (QThread::currentThread() == thread) {
        (void)stopping.release(); // its last client closed from a callback on it: cannot wait
        return;
    }
    stopping->wait();
}

} // namespace tollgate
