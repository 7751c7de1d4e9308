#pragma once

#include <QMutex>
#include <QObject>
#include <QThread>
#include <atomic>
#include <memory>

namespace tollgate {

/// A thread HttpServer serves connections on (its own, or one of its lanes), as its
/// connections' responders reach it from any thread: the object answers are posted to, which
/// outlives every connection there. `target` turns null when the lane stops; posting holds the
/// mutex, so nothing is posted to an object being destroyed.
struct HttpLane
{
    QThread* thread = nullptr;
    QMutex mutex;
    QObject* target = nullptr;       // under `mutex`
    std::atomic<int> connections{0}; // open on this lane

    /// Runs `call` on the lane's thread, later; nothing once the lane has stopped.
    template <typename Call> void post(Call call)
    {
        QMutexLocker lock(&mutex);
        if (target)
            QMetaObject::invokeMethod(target, std::move(call), Qt::QueuedConnection);
    }
};

} // namespace tollgate
