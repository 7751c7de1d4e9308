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
