#include "tests/support/FakeRespServer.h"

#include "tests/support/RedisServer.h"

#include <QTcpSocket>

namespace tollgate::test {

namespace {

// "*2\r\n$4\r\nPING\r\n..." -> {"PING", ...}; the request is complete (checked by the caller).
QList<QByteArray> parseRequest(const QByteArray& raw)
{
    QList<QByteArray> args;
    qsizetype at = raw.indexOf("\r\n") + 2;
    while (at < raw.size() && raw[at] == '$') {
        const qsizetype lineEnd = raw.indexOf("\r\n", at);
        const qsizetype length = raw.mid(at + 1, lineEnd - at - 1).toLongLong();
        args << raw.mid(lineEnd + 2, length);
        at = lineEnd + 2 + length + 2;
    }
    return args;
}

} // namespace

FakeRespServer::FakeRespServer(Answer answer, QObject* parent)
    : QObject(parent), m_answer(std::move(answer))
{
    connect(&m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket* socket = m_server.nextPendingConnection())
            serve(socket);
    });
}

bool FakeRespServer::listen()
{
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QString FakeRespServer::url() const
{
    return QStringLiteral("redis://127.0.0.1:%1").arg(port());
}

void FakeRespServer::serve(QTcpSocket* socket)
{
    socket->setParent(this);
    auto buffer = std::make_shared<QByteArray>();
    connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
        buffer->append(socket->readAll());
        for (;;) {
            const qsizetype length = RedisServer::replyLength(*buffer);
            if (length <= 0)
                return;
            const QList<QByteArray> request = parseRequest(buffer->left(length));
            buffer->remove(0, length);
            m_requests << request;
            socket->write(m_answer(request));
        }
    });
}

} // namespace tollgate::test
