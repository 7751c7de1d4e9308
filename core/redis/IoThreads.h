#pragma once

#include "core/redis/Transport.h"

#include <QAbstractEventDispatcher>
#include <QThread>

namespace tollgate {

/// The worker threads Clients run their connections on, shared: at most one per core, each
/// carrying the connections of several clients (a thread per connection costs a context
/// switch per reply on a busy machine). A client takes the least loaded thread; a thread is
/// started on first use and stopped when its last client is gone. Thread-safe. The threads run
/// EpollDispatcher (TOLLGATE_EVENT_LOOP=qt, or a build without it: Qt's own loop instead).
class IoThreads
{
public:
    static QThread* acquire();
    static void release(QThread* thread);
    /// Threads at most: QThread::idealThreadCount(), or TOLLGATE_IO_THREADS when set (>= 1).
    static int limit();
    /// The loop `thread` (one of these, started) runs.
    static EventLoop eventLoopOf(QThread* thread);
    /// The dispatcher these threads run, for another thread to run too (set before it starts,
    /// or QCoreApplication::setEventDispatcher before the application): nullptr when Qt's own
    /// loop is to be used (TOLLGATE_EVENT_LOOP=qt, no epoll).
    static QAbstractEventDispatcher* newDispatcher();
};

} // namespace tollgate
