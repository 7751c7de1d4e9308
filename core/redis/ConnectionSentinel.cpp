// How a Connection follows a Sentinel deployment: the sentinels name the server before every
// attempt (SentinelLocator), the handshake checks its ROLE, and a READONLY reply or a
// +switch-master announcement starts a new attempt, which asks them again. Reconnecting,
// deadlines and the handling of commands in flight stay the connection's own.
#include "core/redis/Connection.h"

#include "core/sentinel/SentinelLocator.h"

namespace tollgate {

void Connection::setUpSentinel()
{
    if (!m_options.sentinel.enabled())
        return;
    m_sentinel = new SentinelLocator(m_options, this);
    connect(m_sentinel, &SentinelLocator::relocate, this, &Connection::followFailover);
}

void Connection::connectToServer()
{
    const quint64 attempt = ++m_attemptSerial;
    const auto connectNow = [this] {
        const Status created = createDevice();
        if (!created)
            dropConnection(created.error());
    };
    if (!m_sentinel) {
        connectNow();
        return;
    }
    m_sentinel->locate([this, attempt, connectNow](Result<NodeAddress> server) {
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

void Connection::checkRole(const Result<Reply>& role)
{
    // A user whose ACL forbids ROLE cannot check: the sentinel is trusted, and a READONLY reply
    // still sends the connection back to the sentinels.
    if (!role || !role->isArray() || role->elements.empty())
        return;
    const QByteArray name = role->elements.front().toBytes();
    const bool replica = m_options.sentinel.replica;
    if (name == (replica ? "slave" : "master"))
        return;
    const QString sentinel = m_sentinel->lastSentinel();
    m_sentinel->distrust();
    dropConnection({ErrorKind::Busy,
                    QStringLiteral("%1 is a %2 (ROLE), not the %3 of '%4' that the sentinel at %5 "
                                   "named: asking the sentinels again")
                        .arg(m_options.endpoint(), QString::fromUtf8(name),
                             replica ? QStringLiteral("replica") : QStringLiteral("primary"),
                             m_options.sentinel.masterName, sentinel)});
}

void Connection::noteErrorReply(const QByteArray& text)
{
    if (!m_sentinel || m_options.sentinel.replica || !m_device || !isReadOnlyReply(text))
        return;
    dropConnection(
        {ErrorKind::Busy, QStringLiteral("%1 is a replica now (READONLY): asking the "
                                         "sentinels for the primary of '%2'")
                              .arg(m_options.endpoint(), m_options.sentinel.masterName)});
}

void Connection::followFailover(const NodeAddress& primary)
{
    const QString why = QStringLiteral("failover: the sentinels moved '%1' to %2")
                            .arg(m_options.sentinel.masterName, primary.text());
    if (m_state == ConnectionState::Connected) {
        dropConnection({ErrorKind::Closed, why}); // reconnects, and so asks the sentinels
        return;
    }
    // Between attempts, waiting out a growing backoff after the old primary died: try now.
    if (m_state == ConnectionState::Reconnecting && m_reconnectTimer->isActive()) {
        m_attempt = 0;
        m_reconnectTimer->start(0);
    }
}

} // namespace tollgate
