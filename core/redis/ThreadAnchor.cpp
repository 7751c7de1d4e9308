#include "core/redis/ThreadAnchor.h"

#include <QHash>
#include <QMutex>
#include <QPointer>

namespace tollgate {

namespace {

struct Entry
{
    QPointer<QThread> thread; // a QThread deleted without finishing must not lend its address
    std::shared_ptr<ThreadAnchor> anchor;
};

QMutex registryMutex;
QHash<QThread*, Entry>& registry()
{
    static QHash<QThread*, Entry> anchors;
    return anchors;
}

} // namespace

std::shared_ptr<ThreadAnchor> ThreadAnchor::of(QThread* thread)
{
    if (!thread)
        return nullptr;
    // The calling thread asks most often (a Context built from `this`): cached per thread.
    thread_local std::shared_ptr<ThreadAnchor> own;
    const bool isOwn = thread == QThread::currentThread();
    if (isOwn && own)
        return own;

    QMutexLocker lock(&registryMutex);
    Entry& entry = registry()[thread];
    if (!entry.anchor || !entry.thread) {
        auto* receiver = new QObject;
        receiver->moveToThread(thread);
        auto anchor = std::make_shared<ThreadAnchor>(receiver);
        // Direct: runs on the finishing thread, the only one that may delete the receiver.
        QObject::connect(
            thread, &QThread::finished, receiver,
            [thread, weak = std::weak_ptr<ThreadAnchor>(anchor)] {
                if (auto anchor = weak.lock())
                    anchor->retire();
                QMutexLocker lock(&registryMutex);
                auto it = registry().find(thread);
                if (it != registry().end() && it->anchor == weak.lock())
                    registry().erase(it);
            },
            Qt::DirectConnection);
        entry = Entry{thread, std::move(anchor)};
    }
    if (isOwn)
        own = entry.anchor;
    return entry.anchor;
}

void ThreadAnchor::retire()
{
    QObject* receiver = nullptr;
    {
        QWriteLocker lock(&m_lock);
        std::swap(receiver, m_receiver);
    }
    // Outside the lock: the work still queued is destroyed with it and may post again.
    delete receiver;
}

} // namespace tollgate
