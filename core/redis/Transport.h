#pragma once

#include <QByteArray>
#include <QString>

namespace tollgate {

/// The event loop an I/O thread (IoThreads) runs.
enum class EventLoop
{
    Epoll, ///< EpollDispatcher (Linux only): the default where it is built
    Qt     ///< Qt's own loop for the platform
};

/// What reads and writes a plain TCP connection once it is connected.
enum class TcpStreamKind
{
    Raw, ///< TcpStream, recv() and send() on the adopted descriptor (Linux only): the default
    Qt   ///< the QTcpSocket that connected
};

/// What a connection reads and writes through right now.
enum class SocketKind
{
    None,   ///< no connection (not opened, or between attempts)
    RawTcp, ///< plain TCP through TcpStream
    QtTcp,  ///< plain TCP through QTcpSocket
    QtTls,  ///< QSslSocket
    QtLocal ///< a unix socket through QLocalSocket
};

/// The two switches of the transport, read once per process on the first call (thread-safe):
///   TOLLGATE_EVENT_LOOP = epoll | qt   (unset or empty: epoll)
///   TOLLGATE_TCP_STREAM = raw | qt     (unset or empty: raw)
/// An unknown value logs a warning naming the allowed values and keeps the default. Where the
/// Linux-only parts are not built (linuxIoBuilt() false) both are qt, whatever is asked.
struct TransportSwitches
{
    EventLoop eventLoop = EventLoop::Epoll;
    TcpStreamKind tcpStream = TcpStreamKind::Raw;

    static const TransportSwitches& fromEnvironment();
};

/// Whether this build has EpollDispatcher and TcpStream (Linux only; docs/architecture.md).
bool linuxIoBuilt();

/// One switch's value as fromEnvironment() reads it; `warning` is set when the value is refused
/// or cannot be had in this build (the result is then the default). Values are case-insensitive.
EventLoop parseEventLoop(const QByteArray& value, QString* warning);
TcpStreamKind parseTcpStream(const QByteArray& value, QString* warning);

QString eventLoopName(EventLoop loop);
QString tcpStreamName(TcpStreamKind stream);
QString socketKindName(SocketKind kind);

} // namespace tollgate
