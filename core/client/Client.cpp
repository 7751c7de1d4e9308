#include "tollgate/Client.h"

#include "core/client/ClientPending.h"

#include "core/client/TwemproxyBackends.h"
#include "core/client/TwemproxyCommands.h"
#include "core/cluster/ClusterRouter.h"
#include "core/redis/Connection.h"
#include "core/redis/IoThreads.h"
#include "core/redis/ReplyOrder.h"
#include "core/sentinel/SentinelLocator.h"
#include "core/ssh/SshTunnel.h"

#include <QPointer>
#include <QTimer>
#include <algorithm>
#include <future>

namespace tollgate {

Client::Client(ConnectionOptions options, QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_thread(IoThreads::acquire())
{
    qRegisterMetaType<tollgate::ConnectionState>();
    qRegisterMetaType<tollgate::Error>();
    if (m_options.twemproxy.enabled)
        m_options.clientName.clear(); // the proxy forwards no CLIENT SETNAME: no handshake but AUTH
    // Where the connection goes when its address alone cannot say: through the SSH tunnel
    // these options share, to the server the sentinels name. Made here, moved along.
    m_connection = new Connection(
        m_options, m_options.ssh.enabled() ? SshTunnel::shared(m_options.ssh) : nullptr);
    if (m_options.sentinel.enabled())
        m_connection->setLocator(new SentinelLocator(m_options, m_connection));
    m_connection->moveToThread(m_thread);
    if (m_options.twemproxy.enabled)
        m_backends = std::make_unique<TwemproxyBackends>(m_options);

    // The atomic state is updated on the worker thread so it is current for every caller;
    // the signal is re-emitted on this object's thread.
    connect(
        m_connection, &Connection::stateChanged, m_connection,
        [this](ConnectionState state, const Error& error) {
            m_state.store(state);
            if (!error.message.isEmpty()) {
                QMutexLocker lock(&m_errorMutex);
                m_lastError = error;
            }
            if (state == ConnectionState::Connected)
                noteNode(m_connection->endpoint());
            if (state == ConnectionState::Connected && m_probeAgain) {
                m_probeAgain = false;
                probeMode();
            }
        },
        Qt::DirectConnection);
    connect(m_connection, &Connection::stateChanged, this, &Client::stateChanged,
            Qt::QueuedConnection);
    connect(m_connection, &Connection::pushReceived, this, &Client::messageReceived,
            Qt::QueuedConnection);
}

Client::~Client()
{
    std::vector<std::pair<QByteArray, std::shared_ptr<ClientAttachment>>> attachments;
    {
        QMutexLocker lock(&m_attachmentMutex);
        attachments.swap(m_attachments);
    }
    for (auto& attachment : attachments)
        attachment.second->beforeClose();
    m_closing.store(true);
    // Queued behind every command already accepted, so each of them still reaches the
    // connection and completes (at the latest with Closed when it is deleted): no caller,
    // blocking or not, waits forever.
    Connection* connection = m_connection;
    if (QThread::currentThread() == m_thread) {
        // Destroyed by a callback on its own worker thread: nothing can be waited for here.
        m_probing.store(false);
        drainPending();
        if (m_router)
            m_router->deleteLater();
        // Its last signals (Disconnected) must not reach this object, gone by then.
        connection->disconnect();
        connection->deleteLater();
    } else {
        std::promise<void> closed;
        QMetaObject::invokeMethod(
            connection,
            [this, connection, &closed] {
                m_probing.store(false);
                drainPending();
                delete m_router; // answers its open requests with Closed
                delete connection;
                closed.set_value();
            },
            Qt::QueuedConnection);
        closed.get_future().wait();
    }
    IoThreads::release(m_thread);
}

void Client::open()
{
    // Commands wait from now until the server has said what it is (or could not).
    if (m_options.followCluster)
        m_probing.store(true);
    QMetaObject::invokeMethod(
        m_connection,
        [this] {
            m_connection->open();
            if (m_probing.load())
                probeMode();
        },
        Qt::QueuedConnection);
    if (m_options.twemproxy.enabled)
        probeHashTag();
}

Error Client::lastError() const
{
    QMutexLocker lock(&m_errorMutex);
    return m_lastError;
}

QString Client::node() const
{
    QMutexLocker lock(&m_errorMutex);
    return m_node.isEmpty() ? m_options.endpoint() : m_node;
}

void Client::noteNode(const QString& node)
{
    {
        QMutexLocker lock(&m_errorMutex);
        if (m_node == node)
            return;
        m_node = node;
    }
    Q_EMIT nodeChanged(node); // from the worker thread: queued to the receivers' threads
}

EventLoop Client::eventLoop() const
{
    return IoThreads::eventLoopOf(m_thread);
}

SocketKind Client::socketKind() const
{
    return m_connection->socketKind();
}

void Client::runLater(std::chrono::milliseconds delay, std::function<void()> call)
{
    Connection* connection = m_connection;
    if (QThread::currentThread() == m_thread) {
        QTimer::singleShot(delay, connection, std::move(call));
        return;
    }
    QMetaObject::invokeMethod(
        connection,
        [connection, delay, call = std::move(call)]() mutable {
            QTimer::singleShot(delay, connection, std::move(call));
        },
        Qt::QueuedConnection);
}

std::shared_ptr<ClientAttachment>
Client::attachment(const QByteArray& key,
                   const std::function<std::shared_ptr<ClientAttachment>()>& make)
{
    QMutexLocker lock(&m_attachmentMutex);
    for (const auto& entry : m_attachments)
        if (entry.first == key)
            return entry.second;
    m_attachments.emplace_back(key, make());
    return m_attachments.back().second;
}

namespace {

// The caller's callback as the worker thread runs it: itself for a null context, else one
// wrapper that posts it to the context's thread.
Callback<Reply> onWorkerThread(const Context& context, Callback<Reply> done)
{
    if (context.isNull() || !done)
        return done;
    return [context, done = std::move(done)](Result<Reply> result) mutable {
        context.post([done = std::move(done), result = std::move(result)]() mutable {
            done(std::move(result));
        });
    };
}

// Whose order a reply keeps: the context object, or without one the sending thread.
const void* callerOf(const Context& context)
{
    return context.isNull() ? static_cast<const void*>(QThread::currentThread())
                            : context.identity();
}

} // namespace

void Client::execute(const Command& args, Context context, Callback<Reply> done)
{
    executeEncoded(EncodedCommand::fromArgs(args), std::move(context), std::move(done));
}

void Client::executeEncoded(EncodedCommand command, Context context, Callback<Reply> done)
{
    if (m_closing.load()) {
        deliver(context, done, Result<Reply>(ErrorKind::Closed, QStringLiteral("client closed")));
        return;
    }
    if (command.isEmpty()) {
        deliver(context, done,
                Result<Reply>(ErrorKind::InvalidInput, QStringLiteral("empty command")));
        return;
    }
    if (m_backends) {
        Result<EncodedCommand> forwarded = twemproxyCommand(std::move(command));
        if (!forwarded) {
            deliver(context, done, Result<Reply>(forwarded.error()));
            return;
        }
        command = std::move(*forwarded);
    }
    m_commands.fetch_add(1, std::memory_order_relaxed);
    // Already on the worker thread (a callback chaining its next command): no event to
    // ourselves. A connection that would fail the command at once gets it queued instead, so
    // a caller retrying from its error callback cannot recurse without end.
    const bool onWorker = QThread::currentThread() == m_thread;
    Pending pending{std::move(command),
                    onWorkerThread(context, std::move(done)),
                    callerOf(context),
                    {},
                    nullptr};
    if (onWorker && canSendNow(pending.command)) {
        sendNow(std::move(pending));
        return;
    }
    std::vector<Pending> one;
    one.push_back(std::move(pending));
    submit(std::move(one));
}

void Client::submit(std::vector<Pending> commands)
{
    QMutexLocker lock(&m_pendingMutex);
    if (m_pending.empty())
        m_pending = std::move(commands);
    else
        for (Pending& pending : commands)
            m_pending.push_back(std::move(pending));
    if (m_drainPosted)
        return;
    m_drainPosted = true;
    lock.unlock();
    QMetaObject::invokeMethod(
        m_connection, [this] { drainPending(); }, Qt::QueuedConnection);
}

void Client::drainPending()
{
    std::vector<Pending> batch;
    {
        QMutexLocker lock(&m_pendingMutex);
        m_drainPosted = false;
        if (m_probing.load())
            return; // setMode() drains them
        batch.swap(m_pending);
    }
    const Connection::WriteBatch write(m_connection);
    for (Pending& pending : batch)
        sendNow(std::move(pending));
}

bool Client::canSendNow(const EncodedCommand& command) const
{
    if (m_probing.load())
        return false;
    return (m_router && !command.subscribes()) || m_connection->acceptsDirectly();
}

void Client::sendNow(Pending pending)
{
    if (pending.replies) {
        sendPipeline(std::move(pending));
        return;
    }
    if (!m_router) {
        m_connection->submit(std::move(pending.command), std::move(pending.done));
        return;
    }
    // A cluster answers on one connection per node: each caller still gets its replies in the
    // order it sent the commands. Subscriptions stay on our own connection (a PUBLISH reaches
    // every node).
    Callback<Reply> done = m_replyOrder->wrap(pending.caller, std::move(pending.done));
    if (pending.command.subscribes())
        m_connection->submit(std::move(pending.command), std::move(done));
    else
        m_router->execute(std::move(pending.command), nullptr, std::move(done));
}

namespace {

// Hands a batch's replies over once the last is in: on the worker thread for a null context,
// else posted to it (executeBatch and executePipeline alike).
BatchReplies::Done handOverTo(Context context, std::function<void(std::vector<Result<Reply>>)> done)
{
    return [context, done = std::move(done)](std::vector<Result<Reply>> replies) mutable {
        if (!done)
            return;
        if (context.isNull())
            done(std::move(replies));
        else
            context.post([done = std::move(done), replies = std::move(replies)]() mutable {
                done(std::move(replies));
            });
    };
}

} // namespace

void Client::executeBatch(std::vector<Command> commands, Context context,
                          std::function<void(std::vector<Result<Reply>>)> done)
{
    BatchReplies::Done handOver = handOverTo(context, std::move(done));
    if (commands.empty()) {
        handOver({});
        return;
    }
    auto replies = std::make_shared<BatchReplies>(commands.size(), std::move(handOver));
    if (m_closing.load()) {
        // Nothing will be sent: every entry says Closed.
        replies->settleAll(Error{ErrorKind::Closed, QStringLiteral("client closed")});
        return;
    }
    m_commands.fetch_add(commands.size(), std::memory_order_relaxed);
    std::vector<Pending> pending;
    pending.reserve(commands.size());
    const void* caller = callerOf(context); // once: every command of a batch has one caller
    for (size_t i = 0; i < commands.size(); ++i) {
        EncodedCommand command = EncodedCommand::fromArgs(commands[i]);
        auto store = [replies, i](Result<Reply> r) { replies->settle(i, std::move(r)); };
        if (command.isEmpty()) {
            store(Error{ErrorKind::InvalidInput, QStringLiteral("empty command")});
            continue;
        }
        if (m_backends) {
            Result<EncodedCommand> forwarded = twemproxyCommand(std::move(command));
            if (!forwarded) {
                store(forwarded.error());
                continue;
            }
            command = std::move(*forwarded);
        }
        pending.push_back({std::move(command), std::move(store), caller, {}, nullptr});
    }
    if (pending.empty())
        return;
    if (QThread::currentThread() == m_thread &&
        std::all_of(pending.begin(), pending.end(),
                    [this](const Pending& p) { return canSendNow(p.command); })) {
        const Connection::WriteBatch write(m_connection);
        for (Pending& p : pending)
            sendNow(std::move(p));
        return;
    }
    submit(std::move(pending));
}

void Client::executePipeline(EncodedPipeline pipeline, Context context,
                             std::function<void(std::vector<Result<Reply>>)> done)
{
    BatchReplies::Done handOver = handOverTo(context, std::move(done));
    if (pipeline.isEmpty()) {
        handOver({});
        return;
    }
    auto replies = std::make_shared<BatchReplies>(size_t(pipeline.count()), std::move(handOver));
    if (m_closing.load()) {
        // Nothing will be sent: every entry says Closed.
        replies->settleAll(Error{ErrorKind::Closed, QStringLiteral("client closed")});
        return;
    }
    if (m_backends) // one refused command would close the proxy's connection under all of them
        for (qsizetype i = 0; i < pipeline.count(); ++i)
            if (const Status forwarded = twemproxyForwards(pipeline.command(i).bytes());
                !forwarded) {
                replies->settleAll(forwarded.error());
                return;
            }
    m_commands.fetch_add(quint64(pipeline.count()), std::memory_order_relaxed);
    Pending pending{EncodedCommand(), nullptr, callerOf(context), std::move(pipeline), replies};
    if (QThread::currentThread() == m_thread && canSendNow(pending.command)) {
        sendNow(std::move(pending));
        return;
    }
    std::vector<Pending> one;
    one.push_back(std::move(pending));
    submit(std::move(one));
}

void Client::sendPipeline(Pending pending)
{
    if (!m_router) {
        const Connection::WriteBatch write(m_connection);
        m_connection->submit(pending.pipeline, pending.replies);
        return;
    }
    // A cluster: each command to the node of its key, its reply back in the caller's order.
    for (qsizetype i = 0; i < pending.pipeline.count(); ++i) {
        Callback<Reply> settle = [replies = pending.replies, i](Result<Reply> reply) {
            replies->settle(size_t(i), std::move(reply));
        };
        m_router->execute(pending.pipeline.command(i), nullptr,
                          m_replyOrder->wrap(pending.caller, std::move(settle)));
    }
}

Result<Reply> Client::executeSync(Command args)
{
    Q_ASSERT(QThread::currentThread() != m_thread);
    auto promise = std::make_shared<std::promise<Result<Reply>>>();
    auto future = promise->get_future();
    execute(std::move(args), nullptr,
            [promise](Result<Reply> result) { promise->set_value(std::move(result)); });
    return future.get();
}

} // namespace tollgate
