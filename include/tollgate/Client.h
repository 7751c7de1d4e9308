#pragma once

// Client: the Redis client every class of the library works through: one server, a Redis
// Cluster, a Sentinel deployment, a Twemproxy pool, or any of them through an SSH tunnel.

#include "tollgate/ConnectionOptions.h"
#include "tollgate/Reply.h"
#include "tollgate/Result.h"
#include "tollgate/ServerOptions.h"

#include <QMutex>
#include <QObject>
#include <QThread>
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

namespace tollgate {

class BatchReplies;
class EncodedCommand;
class EncodedPipeline;
enum class EventLoop;
enum class SocketKind;
class ClusterRouter;
class TwemproxyBackends;
class ReplyOrder;
class Connection;

/// Something that rides along with one Client and may still need to send before it closes
/// (HitStats' last flush). Kept alive by the client; beforeClose() runs first in ~Client, on
/// the thread destroying it, while commands are still accepted.
class ClientAttachment
{
public:
    virtual ~ClientAttachment() = default;
    virtual void beforeClose() = 0;
};

/// A Redis connection that never blocks its caller. Its socket lives on a worker thread
/// (shared with other clients, IoThreads); commands are pipelined on it. Thread-safe: execute() may
/// be called from any thread. Called on the worker thread itself (a callback chaining the next
/// command) it submits directly; from other threads commands wait in one queue that a single posted
/// event drains. Either way the commands ready at once leave in one socket write.
///
/// A Redis Cluster node as the server (HELLO says mode "cluster") turns the client into a
/// cluster client: commands go through a ClusterRouter to the node owning their keys; pub/sub
/// stays on this client's own connection to the seed (a PUBLISH reaches every node).
///
/// Replies reach each caller in the order of its commands, on a cluster too (where a later
/// reply from a faster node waits for the earlier ones). A caller is the context object, or
/// without one the sending thread. Callers never wait for each other.
///
/// Callbacks: with a context object, `done` runs on the context's thread (queued, and not at
/// all if the context is destroyed first). With a null context it runs on the worker thread;
/// core uses that to chain commands and for the blocking helpers.
class Client : public QObject
{
    Q_OBJECT
public:
    explicit Client(ConnectionOptions options, QObject* parent = nullptr);
    ~Client() override;

    const ConnectionOptions& options() const { return m_options; }

    /// Starts connecting (AUTH, SELECT, CLIENT SETNAME). Commands issued during the first
    /// attempt wait for it; afterwards, while reconnecting, they fail fast with Closed.
    void open();

    ConnectionState state() const { return m_state.load(); }
    Error lastError() const;
    /// "host:port" of the server this client's own connection reached last: on a Sentinel
    /// deployment the primary (or replica) the sentinels named, which changes with a failover
    /// (nodeChanged). options().endpoint() until the first connection.
    QString node() const;

    /// Whether the server is a Redis Cluster node: commands then go to the node owning their
    /// keys, SCAN (scanKeys) runs on every primary, and a script call must touch one slot, so
    /// callers drop the global audit mirror. Asked by open(): isModeKnown() is false
    /// from open() until the server has answered (or the first attempt failed).
    bool isCluster() const { return m_cluster.load(); }
    bool isModeKnown() const { return !m_probing.load(); }
    /// Through a Twemproxy pool (redis+twemproxy://): only what the proxy forwards is sent
    /// (anything else fails with InvalidInput before it reaches the proxy, which would close
    /// the connection), EVALSHA_RO goes as EVALSHA, and whole-server work (SCAN,
    /// INFO, ACL checks) goes to each backend the URL names.
    bool isTwemproxy() const { return m_options.twemproxy.enabled; }
    /// Through Twemproxy: why the pool cannot keep a script's keys together (no hash_tag "{}",
    /// found at open by asking which backend answers for keys of one tag), else empty.
    QString twemproxyWarning() const;
    /// Whether each script call must keep its keys under one hash tag (KeyLayout): on a Redis
    /// Cluster, through Twemproxy (hash_tag "{}") and on a pool's backend.
    bool keysInOneSlot() const
    {
        return isCluster() || m_options.twemproxy.enabled || m_options.twemproxy.backendOfPool;
    }
    /// Runs `call` on context's thread (worker thread for a null context) once the mode is
    /// known: at once when it is, or when the client is not opened yet (its commands then go
    /// out as to a standalone server). For callers that build keys before sending.
    void whenModeKnown(Context context, std::function<void()> call);

    /// Sends one command: any Redis command, arguments as raw bytes.
    void execute(const Command& args, Context context, Callback<Reply> done);

    /// Sends many commands as one pipeline (one hand-over to the worker thread, written
    /// back to back) and delivers every reply, in order, at once. Each entry carries its own
    /// error: one bad key fails its entry, never the batch.
    void executeBatch(std::vector<Command> commands, Context context,
                      std::function<void(std::vector<Result<Reply>>)> done);

    /// Runs `command` on every primary of a cluster (INFO, SLOWLOG GET, CONFIG GET: answers
    /// that are per node), or on the one server: one reply per node, delivered together.
    void executeOnEveryPrimary(const Command& command, Context context,
                               std::function<void(std::vector<Result<Reply>>)> done);

    /// Commands sent so far, plus the commands scripts were estimated to run inside
    /// (addScriptWork): the load this client puts on the server, for a command-rate figure.
    quint64 commandCount() const { return m_commands.load(std::memory_order_relaxed); }
    void addScriptWork(quint64 commands)
    {
        m_commands.fetch_add(commands, std::memory_order_relaxed);
    }

    /// Runs `call` on the worker thread after `delay` (a timer there, nothing blocks); dropped
    /// when the client closes first.
    void runLater(std::chrono::milliseconds delay, std::function<void()> call);

    /// The attachment stored under `key`, made by `make` on first use. Thread-safe.
    std::shared_ptr<ClientAttachment>
    attachment(const QByteArray& key,
               const std::function<std::shared_ptr<ClientAttachment>()>& make);

    /// Blocking convenience for CLI and tools; never call it from a GUI thread.
    Result<Reply> executeSync(Command args);

Q_SIGNALS:
    void stateChanged(tollgate::ConnectionState state, const tollgate::Error& error);
    /// The connection came up on another server than before (node()): a Sentinel failover.
    void nodeChanged(const QString& node);
    /// A pub/sub message (after SUBSCRIBE / PSUBSCRIBE through execute()).
    void messageReceived(const QByteArray& channel, const QByteArray& payload,
                         const QByteArray& pattern);

private:
    friend class ClientInternals; // core/client/ClientInternals.h: what core's own layers use
    void executeEncoded(EncodedCommand command, Context context, Callback<Reply> done);
    void executePipeline(EncodedPipeline pipeline, Context context,
                         std::function<void(std::vector<Result<Reply>>)> done);
    EventLoop eventLoop() const;
    SocketKind socketKind() const;
    ClusterRouter* clusterRouter() const; // worker thread only

    struct Pending; // core/client/ClientPending.h
    void submit(std::vector<Pending> commands);
    void drainPending();                // on the worker thread
    void sendNow(Pending pending);      // on the worker thread, once the mode is known
    void sendPipeline(Pending pending); // sendNow() of a pipeline
    bool canSendNow(const EncodedCommand& command) const; // worker thread: no queueing needed
    void probeMode();                   // on the worker thread: HELLO, then setMode()
    void probeHashTag();                // Twemproxy: does the pool keep a tag together?
    void setMode(bool cluster);         // on the worker thread
    void noteNode(const QString& node); // on the worker thread, when connected

    ConnectionOptions m_options;
    QThread* m_thread;                  // from IoThreads, released by ~Client
    Connection* m_connection = nullptr; // lives on m_thread
    std::atomic<ConnectionState> m_state{ConnectionState::Disconnected};
    std::atomic<bool> m_closing{false};
    std::atomic<bool> m_cluster{false};
    std::atomic<bool> m_probing{false}; // HELLO in flight: commands wait in m_pending
    bool m_probeAgain = false;          // the first probe failed: ask again once connected
    ClusterRouter* m_router = nullptr;  // cluster mode only; lives on m_thread
    std::unique_ptr<TwemproxyBackends> m_backends; // Twemproxy only
    std::shared_ptr<ReplyOrder> m_replyOrder; // cluster mode only: replies come from many nodes
    std::vector<std::pair<Context, std::function<void()>>> m_modeWaiters; // m_pendingMutex
    std::atomic<quint64> m_commands{0};
    mutable QMutex m_errorMutex;
    Error m_lastError;
    QString m_node;             // m_errorMutex
    QString m_twemproxyWarning; // m_errorMutex
    QMutex m_attachmentMutex;
    std::vector<std::pair<QByteArray, std::shared_ptr<ClientAttachment>>> m_attachments;
    QMutex m_pendingMutex;
    std::vector<Pending> m_pending; // from other threads, in order, for drainPending()
    bool m_drainPosted = false;
};

/// Runs `done(result)` on context's thread (dropped if the context object is gone by then),
/// or right here when the context is null.
template <typename T>
void deliver(const Context& context, const Callback<T>& done, Result<T> result)
{
    if (!done)
        return;
    if (context.isNull()) {
        done(std::move(result));
        return;
    }
    context.post([done, result = std::move(result)]() mutable { done(std::move(result)); });
}

/// Delivers a failed validation as the operation's result and says so, for early returns:
/// `if (rejected(valid, context, done)) return;`
template <typename T>
bool rejected(const Status& status, const Context& context, const Callback<T>& done)
{
    if (status)
        return false;
    deliver(context, done, Result<T>(status.error()));
    return true;
}

} // namespace tollgate
