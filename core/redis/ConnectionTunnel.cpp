// How a Connection reaches its server through a tunnel (an SSH tunnel, core/ssh): the tunnel
// hands out a unix socket per server address; plain RESP goes through it with a QLocalSocket,
// TLS with a QSslSocket over that socket's descriptor (the TLS session is still with Redis).
#include "core/redis/Connection.h"

#include "tollgate/Result.h"

#include <QSslSocket>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace tollgate {

void Connection::startThroughTunnel()
{
    // The connect deadline starts again once the forward is there: starting the SSH session
    // (a password typed meanwhile) is the tunnel's to bound, not this attempt's.
    m_connectTimer->stop();
    const quint64 request = ++m_tunnelRequest;
    const Context self(this);
    m_tunnel->forward(m_options.host, m_options.port,
                      [self, this, request](Result<QString> socket) {
                          self.post([this, request, socket = std::move(socket)] {
                              // A newer attempt, or the connection is closing meanwhile.
                              if (request != m_tunnelRequest || m_device ||
                                  m_state == ConnectionState::Disconnected)
                                  return;
                              if (!socket)
                                  dropConnection(socket.error());
                              else
                                  connectDevice(*socket);
                          });
                      });
}

QString Connection::tunnelHint() const
{
    if (!m_tunnel)
        return {};
    const QString failure = m_tunnel->lastForwardFailure();
    return failure.isEmpty() ? QString() : QStringLiteral(" (ssh: %1)").arg(failure);
}

Status Connection::startTlsOverUnixSocket(QSslSocket* socket, const QString& path,
                                          const QString& peerName)
{
    const QByteArray name = path.toLocal8Bit();
    sockaddr_un address{};
    if (name.size() >= qsizetype(sizeof(address.sun_path)))
        return Error{ErrorKind::Io, QStringLiteral("socket path too long: ") + path};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, name.constData(), size_t(name.size()));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return Error{ErrorKind::Io, QStringLiteral("socket: ") + QString::fromLocal8Bit(std::strerror(errno))};
    // A unix socket connects at once (or fails at once): no need to wait for it.
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
        const QString why = QString::fromLocal8Bit(std::strerror(errno));
        ::close(fd);
        return Error{ErrorKind::Io, path + QStringLiteral(": ") + why};
    }
    if (!socket->setSocketDescriptor(fd, QAbstractSocket::ConnectedState)) {
        ::close(fd);
        return Error{ErrorKind::Io, QStringLiteral("TLS over the SSH tunnel: ") +
                                        socket->errorString()};
    }
    socket->setPeerVerifyName(peerName);
    socket->startClientEncryption();
    return Unit{};
}

} // namespace tollgate
