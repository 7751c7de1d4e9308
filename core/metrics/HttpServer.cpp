#include "core/metrics/HttpServer.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace tollgate {

namespace {

constexpr qint64 kMaxHead = 16 * 1024;
constexpr int kReadTimeoutMs = 10'000;

QByteArray reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 431:
        return "Request Header Fields Too Large";
    case 503:
        return "Service Unavailable";
    default:
        return "Error";
    }
}

// The request line and the one header we use; nullopt when it is no HTTP request.
std::optional<HttpRequest> parseHead(const QByteArray& head)
{
    const QList<QByteArray> lines = head.split('\n');
    const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
    if (first.size() != 3 || !first[2].startsWith("HTTP/1."))
        return std::nullopt;
    HttpRequest request;
    request.method = first[0];
    request.path =
        first[1].left(first[1].indexOf('?') < 0 ? first[1].size() : first[1].indexOf('?'));
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == "accept")
            request.accept = line.mid(colon + 1).trimmed();
    }
    return request;
}

} // namespace

HttpResponder::HttpResponder(QTcpSocket* socket) : m_socket(socket) {}

void HttpResponder::send(int status, const QByteArray& contentType, const QByteArray& body) const
{
    if (!m_socket)
        return;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason(status) + "\r\n";
    head += "Content-Type: " + contentType + "\r\n";
    head += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    head += "Connection: close\r\n\r\n";
    m_socket->write(head + body);
    m_socket->disconnectFromHost(); // after the write is flushed
}

HttpServer::HttpServer(Handler handler, QObject* parent)
    : QObject(parent), m_handler(std::move(handler)), m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, &HttpServer::accept);
}

HttpServer::~HttpServer() = default;

Status HttpServer::listen(const QHostAddress& address, quint16 port)
{
    if (m_server->listen(address, port))
        return Unit{};
    return Error{ErrorKind::Io, QStringLiteral("cannot listen on %1:%2: %3")
                                    .arg(address.toString())
                                    .arg(port)
                                    .arg(m_server->errorString())};
}

quint16 HttpServer::port() const
{
    return m_server->serverPort();
}

void HttpServer::accept()
{
    while (QTcpSocket* socket = m_server->nextPendingConnection()) {
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { readHead(socket); });
        // A client that never finishes its request does not hold a socket for ever.
        QTimer::singleShot(kReadTimeoutMs, socket, [socket] {
            if (socket->property("answered").toBool())
                return;
            socket->abort();
            socket->deleteLater();
        });
    }
}

void HttpServer::readHead(QTcpSocket* socket)
{
    if (socket->property("answered").toBool()) {
        socket->readAll(); // a body or a second request: not served
        return;
    }
    QByteArray head = socket->property("head").toByteArray() + socket->readAll();
    const qsizetype end = head.indexOf("\r\n\r\n");
    if (end < 0 && head.size() <= kMaxHead) {
        socket->setProperty("head", head);
        return;
    }
    socket->setProperty("answered", true);
    HttpResponder responder(socket);
    if (end < 0 || end > kMaxHead) {
        responder.send(431, "text/plain; charset=utf-8", "request head too large\n");
        return;
    }
    const auto request = parseHead(head.left(end));
    if (!request) {
        responder.send(400, "text/plain; charset=utf-8", "not an HTTP/1.x request\n");
        return;
    }
    m_handler(*request, responder);
}

} // namespace tollgate
