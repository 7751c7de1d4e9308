#include "core/redis/Client.h"

#include "core/redis/Connection.h"

#include <QPointer>
#include <future>

namespace tollgate {

Client::Client(ConnectionOptions options, QObject* parent)
    : QObject(parent), m_options(std::move(options))
{
    qRegisterMetaType<tollgate::ConnectionState>();
    qRegisterMetaType<tollgate::Error>();
    m_thread.setObjectName(QStringLiteral("redis:") + m_options.endpoint());
    m_connection = new Connection(m_options);
    m_connection->moveToThread(&m_thread);

    // The atomic state is updated on the worker thread so it is current for every caller;
    // the signal is re-emitted on this object's thread.
    connect(m_connection, &Connection::stateChanged, m_connection,
            [this](ConnectionState state, const Error& error) {
                m_state.store(state);
                if (!error.message.isEmpty()) {
                    QMutexLocker lock(&m_errorMutex);
                    m_lastError = error;
                }
            },
            Qt::DirectConnection);
    connect(m_connection, &Connection::stateChanged, this, &Client::stateChanged,
            Qt::QueuedConnection);
    connect(m_connection, &Connection::pushReceived, this, &Client::messageReceived,
            Qt::QueuedConnection);
    m_thread.start();
}

Client::~Client()
{
    m_closing.store(true);
    // Queued behind every command already posted, so each of them still reaches the
    // connection and completes (at the latest with Closed when it is deleted): no caller,
    // blocking or not, waits forever. The deferred delete runs as the thread finishes.
    Connection* connection = m_connection;
    QMetaObject::invokeMethod(
        connection,
        [connection] {
            connection->deleteLater();
            QThread::currentThread()->quit();
        },
        Qt::QueuedConnection);
    m_thread.wait();
}

void Client::open()
{
    Connection* connection = m_connection;
    QMetaObject::invokeMethod(connection, [connection] { connection->open(); },
                              Qt::QueuedConnection);
}

Error Client::lastError() const
{
    QMutexLocker lock(&m_errorMutex);
    return m_lastError;
}

void Client::execute(Command args, Context context, Callback<Reply> done)
{
    if (m_closing.load()) {
        deliver(context, done, Result<Reply>(ErrorKind::Closed, QStringLiteral("client closed")));
        return;
    }
    m_commands.fetch_add(1, std::memory_order_relaxed);
    auto complete = [context, done = std::move(done)](Result<Reply> result) {
        deliver<Reply>(context, done, std::move(result));
    };
    Connection* connection = m_connection;
    QMetaObject::invokeMethod(
        connection,
        [connection, args = std::move(args), complete = std::move(complete)]() mutable {
            connection->submit(std::move(args), std::move(complete));
        },
        Qt::QueuedConnection);
}

void Client::executeBatch(std::vector<Command> commands, Context context,
                          std::function<void(std::vector<Result<Reply>>)> done)
{
    struct Batch
    {
        std::vector<Result<Reply>> replies;
        size_t left = 0;
        Context context;
        std::function<void(std::vector<Result<Reply>>)> done;
    };
    auto batch = std::make_shared<Batch>();
    const Error closed{ErrorKind::Closed, QStringLiteral("client closed")};
    batch->replies.assign(commands.size(), Result<Reply>(closed));
    batch->left = commands.size();
    batch->context = context;
    batch->done = std::move(done);
    auto finish = [batch] {
        if (!batch->done)
            return;
        if (batch->context.isNull()) {
            batch->done(std::move(batch->replies));
            return;
        }
        batch->context.post([batch] { batch->done(std::move(batch->replies)); });
    };
    if (commands.empty() || m_closing.load()) {
        finish();
        return;
    }
    m_commands.fetch_add(commands.size(), std::memory_order_relaxed);
    Connection* connection = m_connection;
    QMetaObject::invokeMethod(
        connection,
        [connection, batch, finish, commands = std::move(commands)]() mutable {
            for (size_t i = 0; i < commands.size(); ++i) {
                connection->submit(std::move(commands[i]), [batch, finish, i](Result<Reply> r) {
                    batch->replies[i] = std::move(r);
                    if (--batch->left == 0)
                        finish();
                });
            }
        },
        Qt::QueuedConnection);
}

Result<Reply> Client::executeSync(Command args)
{
    Q_ASSERT(QThread::currentThread() != &m_thread);
    auto promise = std::make_shared<std::promise<Result<Reply>>>();
    auto future = promise->get_future();
    execute(std::move(args), nullptr,
            [promise](Result<Reply> result) { promise->set_value(std::move(result)); });
    return future.get();
}

} // namespace tollgate
