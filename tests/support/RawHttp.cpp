#include "tests/support/RawHttp.h"

#include <QElapsedTimer>
#include <QTcpSocket>

namespace tollgate::test {

QByteArray decideRequest(const QByteArray& value, const QByteArray& key, const QByteArray& domain)
{
    const QByteArray body = R"({"domain":")" + domain + R"(","descriptors":[{"entries":[{"key":")" +
                            key + R"(","value":")" + value + R"("}]}]})";
    return "POST /v1/decide HTTP/1.1\r\nHost: t\r\nContent-Type: "
           "application/json\r\nContent-Length: " +
           QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

QList<QByteArray> readAnswers(QTcpSocket& socket, int answers, int timeoutMs)
{
    QByteArray buffer;
    QList<QByteArray> bodies;
    QElapsedTimer clock;
    clock.start();
    while (bodies.size() < answers && clock.elapsed() < timeoutMs) {
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end >= 0) {
            const QByteArray head = buffer.left(end).toLower();
            const qsizetype at = head.indexOf("content-length:");
            const qsizetype length =
                head.mid(at + 15, head.indexOf("\r\n", at) - at - 15).trimmed().toLongLong();
            if (buffer.size() >= end + 4 + length) {
                bodies << buffer.left(end + 4 + length);
                buffer.remove(0, end + 4 + length);
                continue;
            }
        }
        if (socket.waitForReadyRead(100))
            buffer += socket.readAll();
        else if (socket.state() != QAbstractSocket::ConnectedState)
            break;
    }
    return bodies;
}

} // namespace tollgate::test
