#include "core/http/HttpServer.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace tollgate {

namespace {

constexpr qint64 kMaxHead = 16 * 1024;
const QByteArray kText = "text/plain; charset=utf-8";

QByteArray reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Error";
    }
}

struct Head
{
    HttpRequest request;
    bool http11 = false;
    qint64 contentLength = 0;
    bool badLength = false;
};

// The request line and the headers; nullopt when it is no HTTP request.
std::optional<Head> parseHead(const QByteArray& text)
{
    const QList<QByteArray> lines = text.split('\n');
    const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
    if (first.size() != 3 || !first[2].startsWith("HTTP/1."))
        return std::nullopt;
    Head head;
    head.http11 = first[2] == "HTTP/1.1";
    head.request.method = first[0];
    const qsizetype query = first[1].indexOf('?');
    head.request.path = query < 0 ? first[1] : first[1].left(query);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        head.request.headers.append({line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed()});
    }
    head.request.accept = head.request.header("accept");
    if (const QByteArray length = head.request.header("content-length"); !length.isEmpty()) {
        bool ok = false;
        head.contentLength = length.toLongLong(&ok);
        head.badLength = !ok || head.contentLength < 0;
    }
    return head;
}

} // namespace

QByteArray HttpRequest::header(const QByteArray& lowerCaseName) const
{
    for (const auto& [name, value] : headers) {
        if (name == lowerCaseName)
            return value;
    }
    return {};
}

/// One client's connection: reads requests one at a time and hands each to the handler; the
/// next is read once the previous one is answered, so answers leave in order.
class HttpConnection : public QObject
{
public:
    HttpConnection(QTcpSocket* socket, const HttpServer::Handler* handler,
                   HttpServerOptions options)
        : QObject(socket), m_socket(socket), m_handler(handler), m_options(options)
    {
        m_idle.setSingleShot(true);
        m_idle.setInterval(options.idleTimeoutMs);
        connect(&m_idle, &QTimer::timeout, socket, [socket] {
            socket->abort();
            socket->deleteLater();
        });
        m_idle.start();
        connect(socket, &QTcpSocket::readyRead, this, [this] {
            m_buffer += m_socket->readAll();
            if (!m_busy)
                serveNext();
        });
    }

    /// Whether `request` is the one waiting for its answer.
    bool awaits(quint64 request) const { return m_busy && request == m_requests; }

    void answered(bool keepAlive)
    {
        m_busy = false;
        if (!keepAlive) {
            m_closing = true;
            m_socket->disconnectFromHost(); // after the write is flushed
            return;
        }
        m_idle.start();
        if (!m_buffer.isEmpty())
            serveNext();
    }

private:
    void refuse(int status, const QByteArray& text)
    {
        m_busy = true;
        HttpResponder(m_socket, this, false, ++m_requests).send(status, kText, text);
    }

    void serveNext()
    {
        if (m_closing)
            return;
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        if (end < 0) {
            if (m_buffer.size() > kMaxHead)
                refuse(431, "request head too large\n");
            return;
        }
        if (end > kMaxHead) {
            refuse(431, "request head too large\n");
            return;
        }
        std::optional<Head> head = parseHead(m_buffer.left(end));
        if (!head) {
            refuse(400, "not an HTTP/1.x request\n");
            return;
        }
        if (head->badLength) {
            refuse(400, "bad Content-Length\n");
            return;
        }
        if (head->contentLength > m_options.maxBody) {
            refuse(413, m_options.maxBody == 0
                            ? QByteArray("this server takes no request body\n")
                            : "the body is larger than " + QByteArray::number(m_options.maxBody) +
                                  " bytes\n");
            return;
        }
        const qint64 total = end + 4 + head->contentLength;
        if (m_buffer.size() < total)
            return; // the rest of the body is on its way
        head->request.body = m_buffer.mid(end + 4, head->contentLength);
        m_buffer.remove(0, total);
        const QByteArray connection = head->request.header("connection").toLower();
        const bool keepAlive = m_options.keepAlive && connection != "close" &&
                               (head->http11 || connection == "keep-alive");
        m_busy = true;
        m_idle.stop();
        (*m_handler)(head->request, HttpResponder(m_socket, this, keepAlive, ++m_requests));
    }

    QTcpSocket* m_socket;
    const HttpServer::Handler* m_handler;
    HttpServerOptions m_options;
    QByteArray m_buffer;
    QTimer m_idle;
    bool m_busy = false;
    bool m_closing = false;
    quint64 m_requests = 0;
};

HttpResponder::HttpResponder(QTcpSocket* socket, HttpConnection* connection, bool keepAlive,
                             quint64 request)
    : m_socket(socket), m_connection(connection), m_keepAlive(keepAlive), m_request(request)
{
}

void HttpResponder::send(int status, const QByteArray& contentType, const QByteArray& body,
                         const HttpHeaders& headers) const
{
    if (!m_socket || !m_connection || !m_connection->awaits(m_request))
        return;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason(status) + "\r\n";
    head += "Content-Type: " + contentType + "\r\n";
    head += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    for (const auto& [name, value] : headers)
        head += name + ": " + value + "\r\n";
    head += m_keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
    m_socket->write(head + body);
    m_connection->answered(m_keepAlive);
}

HttpServer::HttpServer(Handler handler, QObject* parent)
    : HttpServer(std::move(handler), HttpServerOptions{}, parent)
{
}

HttpServer::HttpServer(Handler handler, HttpServerOptions options, QObject* parent)
    : QObject(parent), m_handler(std::move(handler)), m_options(options),
      m_server(new QTcpServer(this))
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
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1); // answers are small
        new HttpConnection(socket, &m_handler, m_options);
    }
}

} // namespace tollgate
