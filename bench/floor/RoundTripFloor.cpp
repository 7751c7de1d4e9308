#include "bench/floor/RoundTripFloor.h"

#include "bench/support/Loopback.h"
#include "core/limiter/HitLoad.h"

#include <hiredis/hiredis.h>

#include <chrono>
#include <fcntl.h>
#include <memory>
#include <sys/epoll.h>
#include <sys/resource.h>

namespace tollgate::bench {

namespace {

constexpr int kReplyTimeoutMs = 5000;

bool watch(int epoll, int operation, int fd)
{
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    return ::epoll_ctl(epoll, operation, fd, &event) == 0;
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
