#include "app/demo/RawCommand.h"

#include <QDeadlineTimer>
#include <QTcpSocket>

namespace tollgate {

namespace {

// True once `data` holds one whole simple reply or bulk string.
bool complete(const QByteArray& data)
{
    const qsizetype eol = data.indexOf("\r\n");
    if (eol < 0)
        return false;
    if (!data.startsWith('$'))
        return true;
    const qsizetype length = data.mid(1, eol - 1).toLongLong();
    return length < 0 || data.size() >= eol + 2 + length + 2;
}

} // namespace

QByteArray rawCommand(const QString& host, quint16 port, const QByteArray& inlineCommand,
                      int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    QTcpSocket socket;
    socket.connectToHost(host, port);
    if (!socket.waitForConnected(int(deadline.remainingTime())))
        return {};
    socket.write(inlineCommand + "\r\n");
    QByteArray reply;
    while (!complete(reply)) {
        if (deadline.hasExpired() || !socket.waitForReadyRead(int(deadline.remainingTime())))
            return {};
        reply += socket.readAll();
    }
    return reply;
}

} // namespace tollgate
