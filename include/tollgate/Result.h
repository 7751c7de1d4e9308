#pragma once

// Result<T> (a value or an Error), Status, Error and ErrorKind: what every operation answers;
// Callback<T> and the Context whose thread runs it: where an asynchronous answer goes.

#include <QByteArray>
#include <QEvent>
#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <variant>

namespace tollgate {

/// What went wrong, as a type callers can branch on. Never match on message text.
enum class ErrorKind
{
    Io,           // socket error, connection refused, TLS handshake failure
    Timeout,      // connect or command deadline passed
    Closed,       // not connected (or the connection went away with the command in flight)
    Protocol,     // the server sent something that is not RESP
    Auth,         // AUTH failed (WRONGPASS, NOAUTH)
    NoPerm,       // the ACL user may not run this command or touch this key
    NoScript,     // EVALSHA for a script the server does not have
    WrongType,    // a key holds the wrong Redis type, or a value of ours has the wrong shape
    Moved,        // Redis Cluster: the slot lives elsewhere
    Ask,          // Redis Cluster: slot migrating
    Busy,         // a script is running too long (BUSY)
    Reply,        // any other error reply from the server
    InvalidInput, // rejected before (or by the script before) anything was written
    Conflict,     // compare-and-set lost: someone else saved first
    NotFound,     // the thing asked for does not exist
    Contract,     // data or scripts of another script contract (lua/README.md, "Contract version")
    Redirect,     // the script wants the call again with other windows (TG_OVERRIDE <windows>)
};

struct Error
{
    ErrorKind kind = ErrorKind::Reply;
    QString message;

    QString toString() const;
};

/// A short stable name for the kind ("io", "timeout", ...), used in JSON output.
QString errorKindName(ErrorKind kind);

/// Placeholder value for operations that only succeed or fail.
struct Unit
{
};

/// A value or a typed Error (an expected-style result; errors never travel as exceptions).
template <typename T> class [[nodiscard]] Result
{
public:
    Result(T value) : m_state(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_state(std::in_place_index<1>, std::move(error)) {}
    Result(ErrorKind kind, QString message)
        : m_state(std::in_place_index<1>, Error{kind, std::move(message)})
    {
    }

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return std::get<0>(m_state); }
    T& value() & { return std::get<0>(m_state); }
    T&& value() && { return std::get<0>(std::move(m_state)); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }
    // Non-const too, so std::move(*result) moves (it copied: a whole Reply tree per reply).
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    T&& operator*() && { return std::move(*this).value(); }

    const Error& error() const { return std::get<1>(m_state); }

private:
    std::variant<T, Error> m_state;
};

using Status = Result<Unit>;

/// Completion callback of an asynchronous operation.
template <typename T> using Callback = std::function<void(Result<T>)>;

class ThreadAnchor; // core/redis/ThreadAnchor.h

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
    Context(QObject* object = nullptr); // NOLINT: implicit on purpose, call sites pass `this`

    /// Null context: callbacks run on the client's worker thread.
    bool isNull() const { return m_identity == nullptr; }
    /// Which object this is for, as an identity only (never dereferenced): what keeps one
    /// caller's replies in order.
    const void* identity() const { return m_identity; }

    /// Runs `call` on the context's thread unless the object is gone by then.
    template <typename F> void post(F&& call) const
    {
        if (m_anchor)
            queue(new QueuedCallOf<std::decay_t<F>>(m_object, std::forward<F>(call)));
    }

    /// A call queued on a context's thread, as the event that carries it there: one allocation
    /// per call, with the call inside (the thread's anchor runs it).
    class QueuedCall : public QEvent
    {
    public:
        QueuedCall() : QEvent(eventType()) {}
        virtual void run() = 0;
        static QEvent::Type eventType();
    };

private:
    template <typename F> class QueuedCallOf final : public QueuedCall
    {
    public:
        QueuedCallOf(QPointer<QObject> guard, F call)
            : m_guard(std::move(guard)), m_call(std::move(call))
        {
        }
        void run() override
        {
            if (m_guard)
                m_call();
        }

    private:
        QPointer<QObject> m_guard;
        F m_call;
    };

    void queue(QueuedCall* call) const; // to the anchor's thread, or deleted once it is gone

    QPointer<QObject> m_object;
    const void* m_identity = nullptr;
    std::shared_ptr<ThreadAnchor> m_anchor; // the object's thread, alive while it runs
};

} // namespace tollgate
