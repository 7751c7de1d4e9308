#include "bench/service/HttpLoad.h"

#include "bench/support/Loopback.h"

#include <sys/epoll.h>
#include <sys/resource.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

namespace tollgate::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSilenceMs = 5000; // no answer on any connection this long: the run is over

struct Connection
{
    std::unique_ptr<Descriptor> socket;
    QByteArray in;
    std::deque<Clock::time_point> sent; // of the requests not answered yet, in order
};

class Runner
{
public:
    Runner(const HttpLoadOptions& options, const BodyMaker& body)
        : m_options(options), m_body(body), m_epoll(::epoll_create1(EPOLL_CLOEXEC)),
          m_connections(size_t(std::max(1, options.connections)))
    {
    }

    HitLoadFigures run()
    {
        const double cpuBefore = cpuSeconds(RUSAGE_SELF);
        m_start = Clock::now();
        m_end = m_start + m_options.duration;
        m_lastAnswer = m_start;
        for (size_t i = 0; i < m_connections.size(); ++i)
            if (open(i))
                send(i);
        std::vector<epoll_event> events(m_connections.size());
        while (m_busy > 0) {
            const int woke =
                ::epoll_wait(m_epoll.fd, events.data(), int(events.size()), kSilenceMs);
            if (woke < 0 && errno == EINTR)
                continue;
            if (woke <= 0) {
                fail(woke == 0 ? QStringLiteral("no answer in %1 s").arg(kSilenceMs / 1000)
                               : systemError("epoll_wait"));
                m_figures.errors += m_busy - 1;
                break;
            }
            for (int k = 0; k < woke; ++k)
                readable(events[size_t(k)].data.u32);
        }
        m_figures.seconds = std::chrono::duration<double>(m_lastAnswer - m_start).count();
        m_figures.cpuSeconds = cpuSeconds(RUSAGE_SELF) - cpuBefore;
        std::sort(m_figures.latenciesMs.begin(), m_figures.latenciesMs.end());
        return std::move(m_figures);
    }

private:
    void fail(const QString& message)
    {
        ++m_figures.errors;
        if (!m_figures.firstError)
            m_figures.firstError = Error{ErrorKind::Io, message};
    }

    bool open(size_t i)
    {
        Connection& connection = m_connections[i];
        connection.socket = std::make_unique<Descriptor>(connectLoopback(m_options.port));
        connection.in.clear();
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.u32 = quint32(i);
        if (connection.socket->fd < 0 ||
            ::epoll_ctl(m_epoll.fd, EPOLL_CTL_ADD, connection.socket->fd, &event) != 0) {
            fail(systemError("connecting"));
            connection.socket.reset();
            return false;
        }
        return true;
    }

    void send(size_t i)
    {
        Connection& connection = m_connections[i];
        QByteArray requests;
        for (int k = 0; k < std::max(1, m_options.pipeline); ++k) {
            const QByteArray body = m_body(m_sequence++);
            requests += "POST " + m_options.path +
                        " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                        "application/json\r\nContent-Length: " +
                        QByteArray::number(body.size()) + "\r\n\r\n" + body;
        }
        const Clock::time_point now = Clock::now();
        // Requests of a few hundred bytes into an empty socket buffer: the send does not wait.
        if (!sendAll(connection.socket->fd, requests)) {
            fail(systemError("send"));
            return;
        }
        for (int k = 0; k < std::max(1, m_options.pipeline); ++k)
            connection.sent.push_back(now);
        m_busy += std::max(1, m_options.pipeline);
    }

    void readable(size_t i)
    {
        Connection& connection = m_connections[i];
        char buffer[16 * 1024];
        bool closed = false;
        for (;;) {
            const ssize_t n = ::recv(connection.socket->fd, buffer, sizeof buffer, MSG_DONTWAIT);
            if (n > 0) {
                connection.in.append(buffer, n);
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
            break;
        }
        while (!connection.sent.empty()) {
            const std::optional<HttpResponse> response = takeHttpResponse(connection.in);
            if (!response)
                break;
            const Clock::time_point sent = connection.sent.front();
            connection.sent.pop_front();
            --m_busy;
            m_lastAnswer = Clock::now();
            if (response->status == 200) {
                ++m_figures.hits;
                m_figures.latenciesMs.push_back(
                    std::chrono::duration<double, std::milli>(m_lastAnswer - sent).count());
            } else {
                fail(QStringLiteral("HTTP status %1").arg(response->status));
            }
            closed = closed || response->closes;
            if (!closed && connection.sent.empty() && m_lastAnswer < m_end)
                send(i);
        }
        if (!closed)
            return;
        if (!connection.sent.empty()) { // the answers never came
            fail(QStringLiteral("the server closed a connection with a request outstanding"));
            m_busy -= qint64(connection.sent.size());
            connection.sent.clear();
        }
        connection.socket.reset(); // closing it takes it out of the epoll set
        if (Clock::now() < m_end && open(i))
            send(i);
    }

    const HttpLoadOptions& m_options;
    const BodyMaker& m_body;
    Descriptor m_epoll;
    std::vector<Connection> m_connections;
    HitLoadFigures m_figures;
    Clock::time_point m_start, m_end, m_lastAnswer;
    quint64 m_sequence = 0;
    qint64 m_busy = 0;
};

} // namespace

std::optional<HttpResponse> takeHttpResponse(QByteArray& in)
{
    const qsizetype headerEnd = in.indexOf("\r\n\r\n");
    if (headerEnd < 0)
        return std::nullopt;
    const QByteArray head = in.left(headerEnd).toLower();
    qint64 length = 0;
    if (const qsizetype at = head.indexOf("\r\ncontent-length:"); at >= 0) {
        const qsizetype from = at + 17;
        const qsizetype end = head.indexOf("\r\n", from);
        length = head.mid(from, end < 0 ? -1 : end - from).trimmed().toLongLong();
    }
    if (in.size() < headerEnd + 4 + length)
        return std::nullopt;
    HttpResponse response;
    response.status = head.mid(9, 3).toInt(); // "http/1.1 200 ..."
    response.closes = head.contains("\r\nconnection: close");
    response.body = in.mid(headerEnd + 4, length);
    in.remove(0, headerEnd + 4 + length);
    return response;
}

HitLoadFigures runHttpLoad(const HttpLoadOptions& options, const BodyMaker& body)
{
    return Runner(options, body).run();
}

} // namespace tollgate::bench
