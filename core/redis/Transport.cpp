#include "core/redis/Transport.h"

#include <QtGlobal>

namespace tollgate {

namespace {

// A switch between the project's own part (`own`, the default where it is built) and Qt's:
// whether Qt's is asked for, or has to be taken.
bool takesQt(const char* variable, const QByteArray& value, const char* own, QString* warning)
{
    const QByteArray asked = value.toLower();
    const QString fallback = QLatin1String(linuxIoBuilt() ? own : "qt");
    if (asked == "qt")
        return true;
    if (asked.isEmpty() || asked == own) {
        if (!linuxIoBuilt() && !asked.isEmpty() && warning)
            *warning = QStringLiteral("%1=%2: Linux only, not in this build; using qt")
                           .arg(QLatin1String(variable), QLatin1String(own));
        return !linuxIoBuilt();
    }
    if (warning)
        *warning = QStringLiteral("%1=%2: not one of %3, qt; using %4")
                       .arg(QLatin1String(variable), QString::fromLocal8Bit(value),
                            QLatin1String(own), fallback);
    return !linuxIoBuilt();
}

} // namespace

bool linuxIoBuilt()
{
#ifdef TOLLGATE_LINUX_IO
    return true;
#else
    return false;
#endif
}

EventLoop parseEventLoop(const QByteArray& value, QString* warning)
{
    return takesQt("TOLLGATE_EVENT_LOOP", value, "epoll", warning) ? EventLoop::Qt
                                                                   : EventLoop::Epoll;
}

TcpStreamKind parseTcpStream(const QByteArray& value, QString* warning)
{
    return takesQt("TOLLGATE_TCP_STREAM", value, "raw", warning) ? TcpStreamKind::Qt
                                                                 : TcpStreamKind::Raw;
}

const TransportSwitches& TransportSwitches::fromEnvironment()
{
    // Read once: a thread started later must not run another loop than the first one.
    static const TransportSwitches switches = [] {
        TransportSwitches read;
        QString warning;
        read.eventLoop = parseEventLoop(qgetenv("TOLLGATE_EVENT_LOOP"), &warning);
        if (!warning.isEmpty())
            qWarning("%s", qPrintable(warning));
        warning.clear();
        read.tcpStream = parseTcpStream(qgetenv("TOLLGATE_TCP_STREAM"), &warning);
        if (!warning.isEmpty())
            qWarning("%s", qPrintable(warning));
        return read;
    }();
    return switches;
}

QString eventLoopName(EventLoop loop)
{
    return loop == EventLoop::Epoll ? QStringLiteral("epoll") : QStringLiteral("qt");
}

QString tcpStreamName(TcpStreamKind stream)
{
    return stream == TcpStreamKind::Raw ? QStringLiteral("raw") : QStringLiteral("qt");
}

QString socketKindName(SocketKind kind)
{
    switch (kind) {
    case SocketKind::None:
        return QStringLiteral("none");
    case SocketKind::RawTcp:
        return QStringLiteral("raw tcp");
    case SocketKind::QtTcp:
        return QStringLiteral("qt tcp");
    case SocketKind::QtTls:
        return QStringLiteral("qt tls");
    case SocketKind::QtLocal:
        return QStringLiteral("qt local");
    }
    return {};
}

} // namespace tollgate
