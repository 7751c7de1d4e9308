#include "core/redis/TcpStream.h"

#include <QSocketNotifier>
#include <QTcpSocket>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace tollgate {

namespace {

QString closedByServer()
{
    return QStringLiteral("the server closed the connection");
}

QString lastSocketError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

} // namespace

TcpStream* TcpStream::adopt(QTcpSocket* socket)
{
    if (socket->state() != QAbstractSocket::ConnectedState || socket->bytesAvailable() > 0 ||
        socket->bytesToWrite() > 0)
        return nullptr; // nothing may be left in Qt's buffers: it would be lost
    const int descriptor = ::fcntl(int(socket->socketDescriptor()), F_DUPFD_CLOEXEC, 0);
    if (descriptor < 0)
        return nullptr;
    // Non-blocking is a property of the connection both descriptors share; set it anyway.
    ::fcntl(descriptor, F_SETFL, ::fcntl(descriptor, F_GETFL) | O_NONBLOCK);
    return new TcpStream(descriptor);
}

TcpStream::TcpStream(int descriptor)
    : m_descriptor(descriptor),
      m_readNotifier(new QSocketNotifier(descriptor, QSocketNotifier::Read, this)),
      m_writeNotifier(new QSocketNotifier(descriptor, QSocketNotifier::Write, this))
{
    m_writeNotifier->setEnabled(false);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &TcpStream::onReadable);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &TcpStream::onWritable);
    open(QIODevice::ReadWrite | QIODevice::Unbuffered);
}

TcpStream::~TcpStream()
{
    close();
}

void TcpStream::close()
{
    if (m_descriptor < 0)
        return;
    m_readNotifier->setEnabled(false);
    m_writeNotifier->setEnabled(false);
    ::close(m_descriptor);
    m_descriptor = -1;
    m_reported = true; // a closed stream reports nothing more
    QIODevice::close();
}

void TcpStream::onReadable()
{
    m_inReadable = true;
    m_readCalled = false;
    Q_EMIT readyRead();
    m_inReadable = false;
    if (!m_readCalled && m_failure.isEmpty() && m_descriptor >= 0) {
        // Nobody read: look for the end here, and else stop watching until somebody reads
        // (a readable descriptor left unread would wake this thread again and again).
        char byte;
        const ssize_t got = ::recv(m_descriptor, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (got == 0)
            fail(closedByServer(), false);
        else if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            fail(lastSocketError(), false);
        else if (got > 0)
            m_readNotifier->setEnabled(false);
    }
    // The reads in that slot found the end: report it after the replies they delivered.
    if (!m_failure.isEmpty() && !m_reported) {
        m_reported = true;
        Q_EMIT failed(m_failure);
    }
}

qint64 TcpStream::readData(char* data, qint64 maxSize)
{
    if (m_descriptor < 0 || !m_failure.isEmpty())
        return -1;
    m_readCalled = true;
    if (!m_readNotifier->isEnabled())
        m_readNotifier->setEnabled(true); // watched again now that somebody reads
    for (;;) {
        const ssize_t got = ::recv(m_descriptor, data, size_t(maxSize), 0);
        if (got > 0)
            return qint64(got);
        if (got == 0) {
            fail(closedByServer(), !m_inReadable);
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        fail(lastSocketError(), !m_inReadable);
        return -1;
    }
}

qint64 TcpStream::sendSome(const char* data, qint64 size)
{
    for (;;) {
        const ssize_t sent = ::send(m_descriptor, data, size_t(size), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0)
            return qint64(sent);
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        // Reported on the next turn: the writer may be deep in a batch of callbacks.
        fail(lastSocketError(), true);
        return -1;
    }
}

qint64 TcpStream::writeData(const char* data, qint64 size)
{
    if (m_descriptor < 0 || !m_failure.isEmpty())
        return -1;
    qint64 sent = 0;
    if (m_pending.isEmpty()) { // else behind what waits, to keep the order
        sent = sendSome(data, size);
        if (sent < 0)
            return -1;
    }
    if (sent < size) {
        m_pending.append(data + sent, size - sent);
        m_writeNotifier->setEnabled(true);
    }
    return size;
}

void TcpStream::onWritable()
{
    const qint64 sent = sendSome(m_pending.constData(), m_pending.size());
    if (sent < 0) {
        m_writeNotifier->setEnabled(false);
        return;
    }
    m_pending.remove(0, sent);
    if (m_pending.isEmpty())
        m_writeNotifier->setEnabled(false);
    if (sent > 0)
        Q_EMIT bytesWritten(sent);
}

void TcpStream::fail(const QString& reason, bool reportLater)
{
    if (!m_failure.isEmpty())
        return;
    m_failure = reason;
    // Ended or failed: the descriptor stays readable for good, so stop watching it.
    m_readNotifier->setEnabled(false);
    if (!reportLater)
        return; // onReadable() reports it once its readyRead() is handled
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (m_reported)
                return;
            m_reported = true;
            Q_EMIT failed(m_failure);
        },
        Qt::QueuedConnection);
}

} // namespace tollgate
