#include "bench/floor/RoundTripFloor.h"

#include "core/limits/HitLoad.h"

#include <hiredis/hiredis.h>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace tollgate::bench {

namespace {

// Closes on scope exit; -1 holds nothing.
struct Descriptor
{
    int fd = -1;
    explicit Descriptor(int value) : fd(value) {}
    ~Descriptor()
    {
        if (fd >= 0)
            ::close(fd);
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
};

QString systemError(const char* what)
{
    return QStringLiteral("%1: %2").arg(QLatin1String(what),
                                        QString::fromLocal8Bit(strerror(errno)));
}

constexpr int kReplyTimeoutMs = 5000;

// A connected TCP socket to 127.0.0.1:port with TCP_NODELAY (as Tollgate's), or -1 with errno.
int connectLoopback(quint16 port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int on = 1;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0) {
        const int failure = errno;
        ::close(fd);
        errno = failure;
        return -1;
    }
    return fd;
}

bool watch(int epoll, int operation, int fd)
{
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    return ::epoll_ctl(epoll, operation, fd, &event) == 0;
}

bool sendAll(int fd, const QByteArray& bytes)
{
    qsizetype sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n =
            ::send(fd, bytes.constData() + sent, size_t(bytes.size() - sent), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        sent += n;
    }
    return true;
}

// Waits for one whole reply and reads it. Empty when it came and was not an error reply.
QString readReply(int connection, int epoll, redisReader* reader)
{
    char buffer[16 * 1024];
    void* reply = nullptr;
    while (!reply) {
        epoll_event ready{};
        const int woke = ::epoll_wait(epoll, &ready, 1, kReplyTimeoutMs);
        if (woke == 0)
            return QStringLiteral("no reply in %1 s").arg(kReplyTimeoutMs / 1000);
        if (woke < 0) {
            if (errno == EINTR)
                continue;
            return systemError("epoll_wait");
        }
        const ssize_t got = ::recv(connection, buffer, sizeof buffer, MSG_DONTWAIT);
        if (got == 0)
            return QStringLiteral("the server closed the connection");
        if (got < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            return systemError("recv");
        }
        if (redisReaderFeed(reader, buffer, size_t(got)) != REDIS_OK)
            return QStringLiteral("cannot feed the reply reader");
        if (redisReaderGetReply(reader, &reply) != REDIS_OK)
            return QStringLiteral("protocol error: %1").arg(QLatin1String(reader->errstr));
    }
    QString error;
    if (static_cast<redisReply*>(reply)->type == REDIS_REPLY_ERROR)
        error = QString::fromUtf8(static_cast<redisReply*>(reply)->str);
    freeReplyObject(reply);
    // More than one reply: the command held more than one command, and the count would be off.
    if (error.isEmpty() && reader->pos != reader->len)
        error = QStringLiteral("more than one reply per command");
    return error;
}

} // namespace

FloorRun runRoundTripFloor(quint16 port, const QByteArray& encoded, qint64 requests,
                           FloorOptions how)
{
    FloorRun run;
    const auto failed = [&run](const QString& error) {
        run.error = error;
        return run;
    };
    if (requests <= 0)
        return failed(QStringLiteral("no requests to send"));
    Descriptor connection(connectLoopback(port));
    if (connection.fd < 0)
        return failed(systemError("connecting"));
    Descriptor epoll(::epoll_create1(EPOLL_CLOEXEC));
    if (epoll.fd < 0)
        return failed(systemError("epoll_create1"));
    if (!watch(epoll.fd, EPOLL_CTL_ADD, connection.fd))
        return failed(systemError("epoll_ctl"));
    int pipeEnds[2] = {-1, -1};
    if (how.touchEpollSet && ::pipe2(pipeEnds, O_CLOEXEC) != 0)
        return failed(systemError("pipe2"));
    const Descriptor pipeRead(pipeEnds[0]), pipeWrite(pipeEnds[1]);
    const std::unique_ptr<redisReader, void (*)(redisReader*)> reader(redisReaderCreate(),
                                                                      redisReaderFree);
    if (!reader)
        return failed(QStringLiteral("cannot create a reply reader"));

    const double cpuBefore = cpuSeconds(RUSAGE_THREAD);
    const auto started = std::chrono::steady_clock::now();
    for (qint64 i = 0; i < requests; ++i) {
        if (how.touchEpollSet && (!watch(epoll.fd, EPOLL_CTL_ADD, pipeRead.fd) ||
                                  !watch(epoll.fd, EPOLL_CTL_DEL, pipeRead.fd)))
            return failed(systemError("epoll_ctl on the pipe"));
        if (!sendAll(connection.fd, encoded))
            return failed(systemError("send"));
        if (const QString error = readReply(connection.fd, epoll.fd, reader.get());
            !error.isEmpty())
            return failed(error);
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
    run.opsPerSecond = double(requests) / took.count();
    run.cpuMicrosPerOp = (cpuSeconds(RUSAGE_THREAD) - cpuBefore) * 1e6 / double(requests);
    return run;
}

} // namespace tollgate::bench
