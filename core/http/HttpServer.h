#pragma once

#include "tollgate/Result.h"

#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

class QSocketNotifier;
class QTcpSocket;
class QThread;

namespace tollgate {

using HttpHeaders = QList<QPair<QByteArray, QByteArray>>;

struct HttpRequest
{
    QByteArray method;  // "GET"
    QByteArray path;    // without the query string
    QByteArray accept;  // the Accept header, empty when absent
    QByteArray body;    // as long as its Content-Length (servers with maxBody > 0 only)
    HttpHeaders headers; // every header, names lower-cased
    QByteArray header(const QByteArray& lowerCaseName) const;
};

struct HttpServerOptions
{
    /// Answer several requests per connection (HTTP/1.1 keep-alive, one at a time, in order),
    /// unless the client says Connection: close. Off: one request, then Connection: close.
    bool keepAlive = false;
    /// The largest request body read (Content-Length); 0: requests with a body are refused.
    qint64 maxBody = 0;
    /// A connection with nothing to answer for this long is closed.
    int idleTimeoutMs = 10'000;
    /// A request's head and body must arrive within this from its first byte (a client that
    /// sends half a request and stops is closed then), at most the idle timeout.
    int requestTimeoutMs = 10'000;
    /// Connections open at once; one more is answered 503 and closed. 0: no cap.
    int maxConnections = 0;
    /// Threads of the server's own ("http-0", ...) that serve its connections, each new one on
    /// the thread with the fewest, so the handler runs on several at once. 0: the server's
    /// thread serves them all. Accepting stays on the server's thread.
    int threads = 0;
};

class HttpConnection;
struct HttpLane;

/// Answers one request, once, whenever the answer is ready, from any thread (it is written on
/// the connection's). A client that hung up meanwhile is no error: the answer is dropped.
class HttpResponder
{
public:
    HttpResponder(QTcpSocket* socket, HttpConnection* connection, bool keepAlive, quint64 request,
                  std::shared_ptr<HttpLane> lane);
    void send(int status, const QByteArray& contentType, const QByteArray& body,
              const HttpHeaders& headers = {}) const;
    /// On the connection's thread (the handler's, when it is called).
    bool clientGone() const { return m_socket.isNull(); }

private:
    QPointer<QTcpSocket> m_socket; // both read on the connection's thread only
    QPointer<HttpConnection> m_connection;
    bool m_keepAlive;
    quint64 m_request; // which request of the connection this answers (a copy answers once)
    std::shared_ptr<HttpLane> m_lane;
};

/// A small HTTP/1.1 server: the exporter's /metrics and health checks (one request per
/// connection), tollgated's JSON endpoint (keep-alive, bodies, several threads). Request heads up to 16 KiB; the
/// first request must arrive within the idle timeout. When accepting fails (no file descriptor
/// left: EMFILE, ENFILE) it stops accepting and tries again after a pause that doubles up to a
/// second, instead of trying again at once (a busy loop) or never (new clients left hanging).
class HttpServer : public QObject
{
    Q_OBJECT
public:
    using Handler = std::function<void(const HttpRequest&, HttpResponder)>;

    HttpServer(Handler handler, QObject* parent = nullptr);
    HttpServer(Handler handler, HttpServerOptions options, QObject* parent = nullptr);
    ~HttpServer() override;

    /// Io error naming the address when it cannot bind (in use, not permitted, no such address).
    Status listen(const QHostAddress& address, quint16 port);
    quint16 port() const;

    int openConnections() const { return m_open.load(); }

private:
    void startLanes();
    void accept();
    /// On `lane`'s thread: serves the accepted descriptor (or refuses it, past the cap).
    void adopt(int fd, bool refuse, const std::shared_ptr<HttpLane>& lane);
    void pauseAccepting(); // after a failed accept: a while, then again

    Handler m_handler;
    HttpServerOptions m_options;
    int m_listening = -1;                  // the listening socket
    quint16 m_port = 0;
    QSocketNotifier* m_notifier = nullptr; // readable: connections to accept
    std::atomic<int> m_open{0};            // connections not yet closed
    int m_acceptBackoffMs = 0;             // the last pause; 0: the last accept worked
    std::vector<std::shared_ptr<HttpLane>> m_lanes; // the first is this thread's without threads
    std::vector<std::unique_ptr<QThread>> m_threads;
    std::vector<QObject*> m_laneObjects; // each on its thread: the sockets' parent
};

} // namespace tollgate
