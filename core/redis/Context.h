#pragma once

#include <QCoreApplication>
#include <QObject>
#include <QPointer>
#include <QThread>

namespace tollgate {

/// Where an asynchronous result goes: a QObject, tracked weakly, so a result for an object
/// that was deleted meanwhile is dropped instead of touching freed memory.
///
/// Built implicitly from `this` (or nullptr) on the caller's thread, where the object is
/// alive; copies travel to the worker thread and back. For objects of the main thread the
/// callback is posted through the application object and the weak pointer is checked on
/// the main thread itself, so deleting a widget while its request is in flight is safe.
class Context
{
public:
    Context(QObject* object = nullptr) // NOLINT: implicit on purpose, call sites pass `this`
        : m_object(object), m_identity(object), m_set(object != nullptr)
    {
        const QCoreApplication* app = QCoreApplication::instance();
        m_onMainThread = object && app && object->thread() == app->thread();
    }

    /// Null context: callbacks run on the client's worker thread.
    bool isNull() const { return !m_set; }
    /// Which object this is for, as an identity only (never dereferenced): what keeps one
    /// caller's replies in order.
    const void* identity() const { return m_identity; }

    /// Runs `call` on the context's thread unless the object is gone by then.
    template <typename F> void post(F&& call) const
    {
        QPointer<QObject> guard = m_object;
        auto checked = [guard, call = std::forward<F>(call)]() mutable {
            if (guard)
                call();
        };
        if (m_onMainThread) {
            if (QCoreApplication* app = QCoreApplication::instance())
                QMetaObject::invokeMethod(app, std::move(checked), Qt::QueuedConnection);
            return;
        }
        // Another thread: the receiver itself must still exist while posting.
        if (QObject* receiver = guard.data())
            QMetaObject::invokeMethod(receiver, std::move(checked), Qt::QueuedConnection);
    }

private:
    QPointer<QObject> m_object;
    const void* m_identity = nullptr;
    bool m_set = false;
    bool m_onMainThread = false;
};

} // namespace tollgate
