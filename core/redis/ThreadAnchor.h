#pragma once

#include "tollgate/Result.h"

#include <QMetaObject>
#include <QReadWriteLock>
#include <QObject>
#include <QThread>
#include <memory>

namespace tollgate {

/// A receiver that lives exactly as long as its thread runs, so any thread can queue work
/// onto that thread without racing the deletion of the object the work is for: a QObject
/// deleted on its own thread while another thread posts to it is a use after free, whereas
/// the anchor is only deleted on its own thread, under the lock post() takes, when the
/// thread finishes. Work queued after that is dropped.
class ThreadAnchor
{
public:
    /// The anchor of `thread`, made on first use (from any thread). Null for a null thread.
    static std::shared_ptr<ThreadAnchor> of(QThread* thread);

    /// Queues `call` on the anchor's thread; drops it once that thread has finished.
    template <typename F> void post(F&& call)
    {
        QReadLocker lock(&m_lock);
        if (m_receiver)
            QMetaObject::invokeMethod(m_receiver, std::forward<F>(call), Qt::QueuedConnection);
    }
    /// Queues a Context's call (the anchor's thread runs it); deletes it once that thread has
    /// finished.
    void post(Context::QueuedCall* call);

    explicit ThreadAnchor(QObject* receiver) : m_receiver(receiver) {}
    ThreadAnchor(const ThreadAnchor&) = delete;
    ThreadAnchor& operator=(const ThreadAnchor&) = delete;

private:
    void retire(); // on the finishing thread itself

    QReadWriteLock m_lock;
    QObject* m_receiver; // lives on the thread; deleted by retire()
};

} // namespace tollgate
