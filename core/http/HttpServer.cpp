#include "core/http/HttpServer.h"

#include "core/http/HttpLane.h"
#include "core/redis/IoThreads.h"

#include <QSocketNotifier>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/socket.h>
#include <unistd.h>

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

/// One client's connection. Every complete request it has sent is handed to the handler at
/// once (a request sent behind another is decided beside it, not after it), and the answers are
/// written in the order of the requests, as HTTP/1.1 requires.
class HttpConnection : public QObject
{
public:
    HttpConnection(QTcpSocket* socket, const HttpServer::Handler* handler,
                   HttpServerOptions options, std::shared_ptr<HttpLane> lane)
        : QObject(socket), m_socket(socket), m_handler(handler), m_options(options),
          m_lane(std::move(lane))
    {
        // One timer: the idle deadline while nothing is buffered, the request's own (shorter)
        // once its first byte is in, stopped while answers are owed.
        m_deadline.setSingleShot(true);
        connect(&m_deadline, &QTimer::timeout, socket, [socket] {
            socket->abort();
            socket->deleteLater();
        });
        m_deadline.start(options.idleTimeoutMs);
        connect(socket, &QTcpSocket::readyRead, this, [this] {
            m_buffer += m_socket->readAll();
            serveNext();
        });
    }

    /// Whether `request` still waits for its answer.
    bool awaits(quint64 request) const
    {
        return request > m_written && request <= m_requests && !m_ready.count(request);
    }

    /// The answer to `request`: written now if every earlier one is, else when they are.
    void deliver(quint64 request, QByteArray bytes, bool keepAlive)
    {
        m_ready.emplace(request, Answer{std::move(bytes), keepAlive});
        for (auto next = m_ready.find(m_written + 1); next != m_ready.end() && !m_closing;
             next = m_ready.find(m_written + 1)) {
            m_socket->write(next->second.bytes);
            ++m_written;
            if (!next->second.keepAlive) {
                m_closing = true;
                m_socket->disconnectFromHost(); // after the write is flushed
            }
            m_ready.erase(next);
        }
        if (!m_closing && !m_serving) // an answer given inside the handler: the loop goes on
            serveNext();
    }

    /// Answers `status` to whatever the client sends, then closes (a connection over the cap).
    void refuseAll(int status, const QByteArray& text) { refuse(status, text); }

private:
    struct Answer
    {
        QByteArray bytes;
        bool keepAlive = false;
    };
    static constexpr quint64 kMaxOwed = 64; // requests decided at once on one connection

    void refuse(int status, const QByteArray& text)
    {
        m_stopped = true; // nothing after a request that cannot be read is read
        HttpResponder(m_socket, this, false, ++m_requests, m_lane).send(status, kText, text);
    }

    quint64 owed() const { return m_requests - m_written; }

    void serveNext()
    {
        m_serving = true;
        while (!m_closing && !m_stopped && owed() < kMaxOwed && dispatchOne()) {
        }
        m_serving = false;
        if (m_closing || m_stopped)
            return;
        if (owed() > 0) {
            m_deadline.stop(); // the handler answers each: its own deadline
            m_timingRequest = false;
        } else if (m_buffer.isEmpty()) {
            if (m_timingRequest || !m_deadline.isActive())
                m_deadline.start(m_options.idleTimeoutMs);
            m_timingRequest = false;
        } else if (!m_timingRequest) { // a request begun: its head and body have so long
            m_deadline.start(std::min(m_options.requestTimeoutMs, m_options.idleTimeoutMs));
            m_timingRequest = true;
        }
    }

    // The first complete request of the buffer to the handler; false when there is none.
    bool dispatchOne()
    {
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        if (end < 0) {
            if (m_buffer.size() > kMaxHead)
                refuse(431, "request head too large\n");
            return false;
        }
        if (end > kMaxHead) {
            refuse(431, "request head too large\n");
            return false;
        }
        std::optional<Head> head = parseHead(m_buffer.left(end));
        if (!head) {
            refuse(400, "not an HTTP/1.x request\n");
            return false;
        }
        if (head->badLength) {
            refuse(400, "bad Content-Length\n");
            return false;
        }
        if (head->contentLength > m_options.maxBody) {
            refuse(413, m_options.maxBody == 0
                            ? QByteArray("this server takes no request body\n")
                            : "the body is larger than " + QByteArray::number(m_options.maxBody) +
                                  " bytes\n");
            return false;
        }
        const qint64 total = end + 4 + head->contentLength;
        if (m_buffer.size() < total)
            return false; // the rest of the body is on its way
        head->request.body = m_buffer.mid(end + 4, head->contentLength);
        m_buffer.remove(0, total);
        const QByteArray connection = head->request.header("connection").toLower();
        const bool keepAlive = m_options.keepAlive && connection != "close" &&
                               (head->http11 || connection == "keep-alive");
        m_stopped = !keepAlive; // the last request of this connection
        m_timingRequest = false; // the next one's time starts with its first byte
        (*m_handler)(head->request, HttpResponder(m_socket, this, keepAlive, ++m_requests, m_lane));
        return true;
    }

    QTcpSocket* m_socket;
    const HttpServer::Handler* m_handler;
    HttpServerOptions m_options;
    std::shared_ptr<HttpLane> m_lane; // the thread it lives on
    QByteArray m_buffer;
    QTimer m_deadline;
    bool m_timingRequest = false; // m_deadline runs for a request begun, not for idleness
    bool m_stopped = false;       // no more requests are read
    bool m_closing = false;       // the last answer is written
    bool m_serving = false;       // in serveNext's loop
    quint64 m_requests = 0;       // requests handed out (numbered from 1)
    quint64 m_written = 0;        // answers written, in order
    std::map<quint64, Answer> m_ready; // answers waiting for an earlier one
};

HttpResponder::HttpResponder(QTcpSocket* socket, HttpConnection* connection, bool keepAlive,
                             quint64 request, std::shared_ptr<HttpLane> lane)
    : m_socket(socket), m_connection(connection), m_keepAlive(keepAlive), m_request(request),
      m_lane(std::move(lane))
{
}

void HttpResponder::send(int status, const QByteArray& contentType, const QByteArray& body,
                         const HttpHeaders& headers) const
{
    if (QThread::currentThread() != m_lane->thread) { // written where the connection lives
        m_lane->post([answer = *this, status, contentType, body, headers] {
            answer.send(status, contentType, body, headers);
        });
        return;
    }
    if (!m_socket || !m_connection || !m_connection->awaits(m_request))
        return;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason(status) + "\r\n";
    head += "Content-Type: " + contentType + "\r\n";
    head += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    for (const auto& [name, value] : headers)
        head += name + ": " + value + "\r\n";
    head += m_keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
    m_connection->deliver(m_request, head + body, m_keepAlive);
}

HttpServer::HttpServer(Handler handler, QObject* parent)
    : HttpServer(std::move(handler), HttpServerOptions{}, parent)
{
}

HttpServer::HttpServer(Handler handler, HttpServerOptions options, QObject* parent)
    : QObject(parent), m_handler(std::move(handler)), m_options(options)
{
    startLanes();
}

HttpServer::~HttpServer()
{
    delete m_notifier; // before its descriptor is closed
    if (m_listening >= 0)
        ::close(m_listening);
    for (const std::shared_ptr<HttpLane>& lane : m_lanes) {
        QMutexLocker lock(&lane->mutex);
        lane->target = nullptr; // answers still on their way are dropped
    }
    for (const std::unique_ptr<QThread>& thread : m_threads) {
        thread->quit();
        thread->wait();
    }
    // Every connection now, while the counts their ends update are still here.
    qDeleteAll(m_laneObjects);
    qDeleteAll(findChildren<QTcpSocket*>(Qt::FindDirectChildrenOnly));
}

void HttpServer::startLanes()
{
    if (m_options.threads <= 0) {
        auto own = std::make_shared<HttpLane>();
        own->thread = thread();
        own->target = this;
        m_lanes.push_back(std::move(own));
        return;
    }
    for (int i = 0; i < m_options.threads; ++i) {
        auto thread = std::make_unique<QThread>();
        thread->setObjectName(QStringLiteral("http-%1").arg(i));
        if (QAbstractEventDispatcher* dispatcher = IoThreads::newDispatcher())
            thread->setEventDispatcher(dispatcher); // the I/O threads' loop; the thread owns it
        auto* object = new QObject;
        object->moveToThread(thread.get());
        auto lane = std::make_shared<HttpLane>();
        lane->thread = thread.get();
        lane->target = object;
        thread->start();
        m_lanes.push_back(std::move(lane));
        m_laneObjects.push_back(object);
        m_threads.push_back(std::move(thread));
    }
}

Status HttpServer::listen(const QHostAddress& address, quint16 port)
{
    // QTcpServer binds (addresses of every family, SO_REUSEADDR); the accepting is done here on
    // a duplicate of its socket, because QTcpServer (Qt 6.4) tries again at once when accept
    // fails for want of a descriptor: a busy loop for as long as none is free.
    QTcpServer server;
    if (!server.listen(address, port))
        return Error{ErrorKind::Io, QStringLiteral("cannot listen on %1:%2: %3")
                                        .arg(address.toString())
                                        .arg(port)
                                        .arg(server.errorString())};
    m_port = server.serverPort();
    m_listening = ::fcntl(int(server.socketDescriptor()), F_DUPFD_CLOEXEC, 0);
    server.close(); // the duplicate keeps the socket listening (and non-blocking)
    if (m_listening < 0)
        return Error{ErrorKind::Io, QStringLiteral("cannot listen on %1:%2: %3")
                                        .arg(address.toString())
                                        .arg(port)
                                        .arg(QString::fromLocal8Bit(strerror(errno)))};
    m_notifier = new QSocketNotifier(m_listening, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &HttpServer::accept);
    return Unit{};
}

quint16 HttpServer::port() const
{
    return m_port;
}

void HttpServer::accept()
{
    for (int i = 0; i < 64; ++i) { // then the event loop runs again, whatever is left
#ifdef __linux__
        const int fd = ::accept4(m_listening, nullptr, nullptr, SOCK_CLOEXEC);
#else
        const int fd = ::accept(m_listening, nullptr, nullptr);
#endif
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                pauseAccepting(); // EMFILE, ENFILE, ENOBUFS, ENOMEM: nothing to do but wait
            return;
        }
        m_acceptBackoffMs = 0;
        const int open = ++m_open;
        const bool refuse = m_options.maxConnections > 0 && open > m_options.maxConnections;
        // The lane with the fewest connections open takes it.
        const std::shared_ptr<HttpLane> lane = *std::min_element(
            m_lanes.begin(), m_lanes.end(), [](const auto& a, const auto& b) {
                return a->connections.load() < b->connections.load();
            });
        ++lane->connections;
        if (lane->thread == QThread::currentThread())
            adopt(fd, refuse, lane);
        else
            lane->post([this, fd, refuse, lane] { adopt(fd, refuse, lane); });
    }
}

void HttpServer::adopt(int fd, bool refuse, const std::shared_ptr<HttpLane>& lane)
{
    auto* socket = new QTcpSocket(lane->target);
    if (!socket->setSocketDescriptor(fd)) {
        ::close(fd);
        delete socket;
        --m_open;
        --lane->connections;
        return;
    }
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    // On the socket's thread, as it goes (the server deletes the last ones itself).
    connect(socket, &QObject::destroyed, [this, lane] {
        --m_open;
        --lane->connections;
    });
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1); // answers are small
    auto* connection = new HttpConnection(socket, &m_handler, m_options, lane);
    if (refuse)
        connection->refuseAll(503, "too many connections open; try again\n");
}

void HttpServer::pauseAccepting()
{
    // The connections wait in the kernel's backlog meanwhile; a pause that doubles keeps a
    // shortage that lasts from costing CPU, and one that ends from costing more than a second.
    m_notifier->setEnabled(false);
    m_acceptBackoffMs = std::clamp(m_acceptBackoffMs * 2, 10, 1000);
    QTimer::singleShot(m_acceptBackoffMs, this, [this] { m_notifier->setEnabled(true); });
}

} // namespace tollgate
