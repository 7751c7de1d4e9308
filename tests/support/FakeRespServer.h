#pragma once

#include <QByteArray>
#include <QList>
#include <QTcpServer>
#include <functional>

namespace tollgate::test {

// A TCP server speaking raw RESP, for what a real redis-server never sends: hostile headers,
// truncated replies. Each request (a RESP array of bulk strings) is handed to `answer`, which
// returns the raw bytes to write back ("+PONG\r\n", "*2147483647\r\n"). Lives on the test thread.
class FakeRespServer : public QObject
{
    Q_OBJECT
public:
    using Answer = std::function<QByteArray(const QList<QByteArray>& request)>;

    explicit FakeRespServer(Answer answer, QObject* parent = nullptr);

    bool listen();
    quint16 port() const { return m_server.serverPort(); }
    QString url() const;
    // Every request received so far, in order, across connections.
    const QList<QList<QByteArray>>& requests() const { return m_requests; }

private:
    void serve(QTcpSocket* socket);

    Answer m_answer;
    QTcpServer m_server;
    QList<QList<QByteArray>> m_requests;
};

} // namespace tollgate::test
