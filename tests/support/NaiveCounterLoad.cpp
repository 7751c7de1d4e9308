#include "tests/support/NaiveCounterLoad.h"

#include "tests/support/RedisServer.h"

#include <QDeadlineTimer>
#include <QHostAddress>
#include <QTcpSocket>

#include <memory>

namespace tollgate::test {

NaiveCounterLoad::NaiveCounterLoad(QString host, quint16 port, QByteArray prefix, int keys,
                                   int expireSeconds)
    : m_host(std::move(host)), m_port(port), m_prefix(std::move(prefix)), m_keys(keys),
      m_expireSeconds(expireSeconds)
{
}

NaiveCounterLoad::~NaiveCounterLoad()
{
    stop();
}

void NaiveCounterLoad::start(int threads)
{
    m_stop = false;
    for (int i = 0; i < threads; ++i)
        m_threads.emplace_back([this, i, threads] { run(i, threads); });
}

void NaiveCounterLoad::stop()
{
    m_stop = true;
    for (std::thread& thread : m_threads)
        thread.join();
    m_threads.clear();
}

void NaiveCounterLoad::run(int thread, int threads)
{
    // The socket belongs to this thread; waitFor* needs no event loop.
    std::unique_ptr<QTcpSocket> socket;
    auto exchange = [&](const QList<QByteArray>& args) -> QByteArray {
        if (!socket || socket->state() != QAbstractSocket::ConnectedState) {
            socket = std::make_unique<QTcpSocket>();
            socket->connectToHost(QHostAddress(m_host), m_port);
            if (!socket->waitForConnected(2000))
                return {};
        }
        socket->write(RedisServer::encodeCommand(args));
        const QByteArray reply =
            RedisServer::readReplies(*socket, 1, QDeadlineTimer(3000)).value(0);
        if (reply.isEmpty())
            socket.reset(); // a reply that never came: this connection is out of step
        return reply;
    };
    for (int n = thread; !m_stop.load(); n = (n + threads) % m_keys) {
        const QByteArray key = m_prefix + "{u" + QByteArray::number(n) + "}:naive";
        const QByteArray count = exchange({QByteArrayLiteral("INCR"), key});
        ++m_operations;
        if (count == ":1\r\n") {
            const QByteArray expired = exchange(
                {QByteArrayLiteral("EXPIRE"), key, QByteArray::number(m_expireSeconds)});
            if (!expired.startsWith(':'))
                ++m_errors;
        } else if (!count.startsWith(':')) {
            ++m_errors;
        }
    }
}

} // namespace tollgate::test
