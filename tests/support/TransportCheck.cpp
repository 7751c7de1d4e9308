#include "tests/support/TransportCheck.h"
#include "core/client/ClientInternals.h"
#include "core/redis/Transport.h"

namespace tollgate::test {

namespace {

// Qt's when asked for it, or when the build has nothing else; else the project's own part.
bool asksForQt(const char* variable)
{
    return qgetenv(variable).toLower() == "qt" || !linuxIoBuilt();
}

} // namespace

QString transportMismatch(const Client& client)
{
    const EventLoop loop = asksForQt("TOLLGATE_EVENT_LOOP") ? EventLoop::Qt : EventLoop::Epoll;
    if (ClientInternals::eventLoop(client) != loop)
        return QStringLiteral("the client's thread runs the %1 loop, the environment asks for %2")
            .arg(eventLoopName(ClientInternals::eventLoop(client)), eventLoopName(loop));
    const ConnectionOptions& options = client.options();
    if (options.transport != ConnectionOptions::Transport::Tcp || options.tls.enabled)
        return {}; // Qt's sockets either way
    const SocketKind socket =
        asksForQt("TOLLGATE_TCP_STREAM") ? SocketKind::QtTcp : SocketKind::RawTcp;
    if (ClientInternals::socketKind(client) != socket)
        return QStringLiteral("the client's connection is %1, the environment asks for %2")
            .arg(socketKindName(ClientInternals::socketKind(client)), socketKindName(socket));
    return {};
}

} // namespace tollgate::test
