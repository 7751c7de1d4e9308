// How a Connection follows a server that moves (a Sentinel deployment): its locator names the
// server before every attempt, the handshake checks it, and an error reply that says it is no
// longer the one meant, or the locator's relocated(), starts a new attempt, which asks again.
// Reconnecting, deadlines and the handling of commands in flight stay the connection's own.
#include "core/redis/Connection.h"

namespace tollgate {

void Connection::setLocator(ServerLocator* locator)
{
    m_locator = locator;
    m_locator->setParent(this);
    connect(m_locator, &ServerLocator::relocated, this, &Connection::followRelocation);
}

QString Connection::endpoint() const
{
    if (m_options.transport == ServerOptions::Transport::Unix)
        return m_options.socketPath;
    const QString address =
        m_locator && m_options.host.isEmpty()
            ? m_locator->describe()
            : m_options.host + QLatin1Char(':') + QString::number(m_options.port);
    return m_tunnel ? address + QStringLiteral(" via ") + m_tunnel->via() : address;
}

void Connection::connectToServer()
{
    const quint64 attempt = ++m_attemptSerial;
    const auto connectNow = [this] {
        if (m_tunnel && m_options.transport == ServerOptions::Transport::Tcp) {
            startThroughTunnel(); // asks the tunnel for a forward to the server first
            return;
        }
        const Status created = createDevice({});
        if (!created)
            dropConnection(created.error());
    };
    if (!m_locator) {
        connectNow();
        return;
    }
    m_locator->locate([this, attempt, connectNow](Result<NodeAddress> server) {
        // The connect deadline runs exactly as long as the attempt: when it is over (timed out,
        // closed) or another began, this answer is for nobody.
        if (attempt != m_attemptSerial || !m_connectTimer->isActive() || m_device)
            return;
        if (!server) {
            dropConnection(server.error());
            return;
        }
        m_options.host = server->host;
        m_options.port = server->port;
        connectNow();
    });
}

void Connection::checkServer(const Result<Reply>& reply)
{
    if (std::optional<Error> wrong = m_locator->checkHandshake(reply, endpoint()))
        dropConnection(*wrong);
}

void Connection::noteErrorReply(const QByteArray& text)
{
    if (!m_locator || !m_device)
        return;
    if (std::optional<Error> moved = m_locator->checkErrorReply(text, endpoint()))
        dropConnection(*moved);
}

void Connection::followRelocation(const NodeAddress& server)
{
    if (m_state == ConnectionState::Connected) {
        // reconnects, and so asks the locator
        dropConnection({ErrorKind::Closed, m_locator->relocationReason(server)});
        return;
    }
    // Between attempts, waiting out a growing backoff after the old server died: try now.
    if (m_state == ConnectionState::Reconnecting && m_reconnectTimer->isActive()) {
        m_attempt = 0;
        m_reconnectTimer->start(0);
    }
}

} // namespace tollgate
