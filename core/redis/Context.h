#pragma once

#include "core/redis/ThreadAnchor.h"

#include <QObject>
#include <QPointer>
#include <QThread>
#include <memory>

namespace tollgate {

/// Where an asynchronous result goes: a QObject, tracked weakly, so a result for an object
/// that was deleted meanwhile is dropped instead of touching freed memory.
///
/// Built implicitly from `this` (or nullptr) where the object is alive; copies travel to the
/// worker thread and back. The callback is queued on the object's thread through that
/// thread's ThreadAnchor, never through the object itself (which its own thread may be
/// deleting at that moment), and the weak pointer is checked there, on the object's thread:
/// deleting a widget or a router while its request is in flight is safe.
class Context
{
public:
    Context(QObject* object = nullptr) // NOLINT: implicit on purpose, call sites pass `this`
        : m_object(object), m_identity(object),
          m_anchor(object ? ThreadAnchor::of(object->thread()) : nullptr)
    {
    }

    /// Null context: callbacks run on the client's worker thread.
    bool isNull() const { return m_identity == nullptr; }
    /// Which object this is for, as an identity only (never dereferenced): what keeps one
    /// caller's replies in order.
    const void* identity() const { return m_identity; }

    /// Runs `call` on the context's thread unless the object is gone by then.
    template <typename F> void post(F&& call) const
    {
        if (!m_anchor)
            return;
        m_anchor->post([guard = m_object, call = std::forward<F>(call)]() mutable {
            if (guard)
                call();
        });
    }

private:
    QPointer<QObject> m_object;
    const void* m_identity = nullptr;
    std::shared_ptr<ThreadAnchor> m_anchor; // the object's thread, alive while it runs
};

} // namespace tollgate
