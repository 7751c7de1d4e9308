#pragma once

#include "core/redis/Result.h"

#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <functional>

class QTcpServer;
class QTcpSocket;

namespace tollgate {

struct HttpRequest
{
    QByteArray method; // "GET"
    QByteArray path;   // without the query string
    QByteArray accept; // the Accept header, empty when absent
};

/// Answers one request, once, whenever the answer is ready. A client that hung up meanwhile
/// is no error: the answer is dropped.
class HttpResponder
{
public:
    explicit HttpResponder(QTcpSocket* socket);
    void send(int status, const QByteArray& contentType, const QByteArray& body) const;
    bool clientGone() const { return m_socket.isNull(); }

private:
    QPointer<QTcpSocket> m_socket;
};

/// A deliberately small HTTP/1.1 server for /metrics and the health checks: one request per
/// connection (Connection: close), request heads up to 16 KiB, read within 10 s.
class HttpServer : public QObject
{
    Q_OBJECT
public:
    using Handler = std::function<void(const HttpRequest&, HttpResponder)>;

    HttpServer(Handler handler, QObject* parent = nullptr);
    ~HttpServer() override;

    /// Io error naming the address when it cannot bind (in use, not permitted, no such address).
    Status listen(const QHostAddress& address, quint16 port);
    quint16 port() const;

private:
    void accept();
    void readHead(QTcpSocket* socket);

    Handler m_handler;
    QTcpServer* m_server;
};

} // namespace tollgate
