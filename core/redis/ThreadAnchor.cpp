#include "core/redis/ThreadAnchor.h"

#include <QCoreApplication>
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

/// The anchor's object on its thread: runs the Contexts' calls queued to it.
class Receiver : public QObject
{
public:
    bool event(QEvent* event) override
    {
        if (event->type() != Context::QueuedCall::eventType())
            return QObject::event(event);
        static_cast<Context::QueuedCall*>(event)->run();
        return true;
    }
};

} // namespace

Context::Context(QObject* object)
    : m_object(object), m_identity(object),
      m_anchor(object ? ThreadAnchor::of(object->thread()) : nullptr)
{
}

void Context::queue(QueuedCall* call) const
{
    m_anchor->post(call);
}

QEvent::Type Context::QueuedCall::eventType()
{
    static const auto type = QEvent::Type(QEvent::registerEventType());
    return type;
}

void ThreadAnchor::post(Context::QueuedCall* call)
{
    {
        QReadLocker lock(&m_lock);
        if (m_receiver) {
            QCoreApplication::postEvent(m_receiver, call);
            return;
        }
    }
    delete call; // outside the lock: its captures may post again
}

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
        auto* receiver = new Receiver;
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
