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
        ::close(fd);
        return -1;
    }
    return fd;
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

} // namespace

FloorRun runRoundTripFloor(quint16 port, const QByteArray& encoded, qint64 requests,
                           RoundTripFloor how)
{
    FloorRun run;
    Descriptor socket(connectLoopback(port));
    Descriptor epoll(::epoll_create1(EPOLL_CLOEXEC));
    int pipeEnds[2] = {-1, -1};
    if (::pipe2(pipeEnds, O_CLOEXEC) != 0)
        pipeEnds[0] = pipeEnds[1] = -1;
    Descriptor pipeRead(pipeEnds[0]), pipeWrite(pipeEnds[1]);
    epoll_event watch{};
    watch.events = EPOLLIN;
    watch.data.fd = socket.fd;
    if (socket.fd < 0 || epoll.fd < 0 || pipeRead.fd < 0 ||
        ::epoll_ctl(epoll.fd, EPOLL_CTL_ADD, socket.fd, &watch) != 0) {
        run.error = systemError("setting up the floor client");
        return run;
    }
    std::unique_ptr<redisReader, void (*)(redisReader*)> reader(redisReaderCreate(),
                                                                redisReaderFree);
    epoll_event unrelated{};
    unrelated.events = EPOLLIN;
    unrelated.data.fd = pipeRead.fd;
    char buffer[16 * 1024];

    const double cpuBefore = cpuSeconds(RUSAGE_THREAD);
    const auto started = std::chrono::steady_clock::now();
    for (qint64 i = 0; i < requests; ++i) {
        if (how.touchEpollSet) {
            ::epoll_ctl(epoll.fd, EPOLL_CTL_ADD, pipeRead.fd, &unrelated);
            ::epoll_ctl(epoll.fd, EPOLL_CTL_DEL, pipeRead.fd, &unrelated);
        }
        if (!sendAll(socket.fd, encoded)) {
            run.error = systemError("send");
            return run;
        }
        void* reply = nullptr;
        while (!reply) {
            epoll_event ready{};
            if (::epoll_wait(epoll.fd, &ready, 1, -1) < 0 && errno != EINTR) {
                run.error = systemError("epoll_wait");
                return run;
            }
            const ssize_t got = ::recv(socket.fd, buffer, sizeof buffer, MSG_DONTWAIT);
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
                run.error = QStringLiteral("the server closed the connection");
                return run;
            }
            if (got > 0 && redisReaderFeed(reader.get(), buffer, size_t(got)) != REDIS_OK) {
                run.error = QStringLiteral("cannot feed the reply reader");
                return run;
            }
            if (redisReaderGetReply(reader.get(), &reply) != REDIS_OK) {
                run.error = QStringLiteral("protocol error: %1").arg(QLatin1String(reader->errstr));
                return run;
            }
        }
        const bool isError = static_cast<redisReply*>(reply)->type == REDIS_REPLY_ERROR;
        if (isError)
            run.error = QString::fromUtf8(static_cast<redisReply*>(reply)->str);
        freeReplyObject(reply);
        if (isError)
            return run;
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
    run.opsPerSecond = double(requests) / took.count();
    run.cpuMicrosPerOp = (cpuSeconds(RUSAGE_THREAD) - cpuBefore) * 1e6 / double(requests);
    return run;
}

} // namespace tollgate::bench
