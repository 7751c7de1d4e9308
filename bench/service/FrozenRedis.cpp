// bench_service's frozen part: how long tollgated takes to answer while Redis is frozen
// (SIGSTOP), at each URL `timeout`: every decision should get the failure policy's answer
// (`--on-error allow`) at the timeout plus a millisecond or two, whatever else waits.
#include "bench/hit/ServerFigures.h"
#include "bench/service/HttpLoad.h"
#include "bench/service/ServiceBench.h"
#include "envoy/service/ratelimit/v3/rls.pb.h"
#include "tollgate/Client.h"

#include <QThread>
#include <csignal>

namespace tollgate::bench {

namespace rls = envoy::service::ratelimit::v3;

namespace {

// Each load is short: Redis silent for the timeout plus the heartbeat (15 s) drops the
// connection, after which the failure policy answers at once (a different case).
constexpr auto kFrozenLoad = std::chrono::seconds(2);

qint64 redisPid(Client& admin)
{
    const auto info = admin.executeSync({"INFO", "server"});
    if (info)
        for (const QByteArray& line : info->toBytes().split('\n'))
            if (line.startsWith("process_id:"))
                return line.mid(11).trimmed().toLongLong();
    return 0;
}

// tollgated_deadline_lateness_seconds' bucket `le` (its count with le empty) in an exposition.
double lateness(const QByteArray& exposition, const char* le)
{
    const QByteArray name = *le ? QByteArray("tollgated_deadline_lateness_seconds_bucket{le=\"") +
                                      le + "\"}"
                                : QByteArray("tollgated_deadline_lateness_seconds_count");
    return TollgatedProcess::sum(exposition, name);
}

RequestMaker subject(const QByteArray& domain, const QByteArray& user)
{
    return [domain, user](quint64, rls::RateLimitRequest* request) {
        fillRequest(request, domain, "remote_address", {user});
    };
}

} // namespace

void ServiceBench::partFrozen()
{
    printLine("\nRedis frozen (SIGSTOP) under each load, tollgated --on-error allow, the URL's "
              "timeout at");
    for (const int timeout : m_s.frozenTimeouts)
        printLine(" %d ms", timeout);
    printLine("; from when each request was sent:\n");
    for (const int timeout : m_s.frozenTimeouts)
        if (!m_failed)
            frozenRound(timeout);
}

void ServiceBench::frozenRound(int timeoutMs)
{
    m_daemon.stop();
    if (!startDaemon({QStringLiteral("--on-error"), QStringLiteral("allow")},
                     QStringLiteral("?timeout=%1").arg(timeoutMs)))
        return;
    const qint64 redis = redisPid(m_admin);
    if (redis <= 0) {
        std::fprintf(stderr, "bench_service: no process_id in INFO server\n");
        m_failed = true;
        return;
    }
    // A subject over its limit (1 an hour), its refusal cached; every connection warm.
    grpc(subject("fill", "frozen-refused"), 0, 3, 10);
    grpc(benchUsers(), 0, 500, 10);
    GrpcLoadOptions grpcLoad;
    grpcLoad.target = QStringLiteral("127.0.0.1:%1").arg(m_daemon.grpcPort());
    HttpLoadOptions httpLoad;
    httpLoad.port = m_daemon.httpPort();
    const auto frozen = [&](const QString& what, const std::function<HitLoadFigures()>& load) {
        const QByteArray before = m_daemon.metrics(); // (read while Redis answers: /metrics asks it)
        ::kill(pid_t(redis), SIGSTOP);
        FrozenFigure figure{what, timeoutMs, load()};
        ::kill(pid_t(redis), SIGCONT);
        QThread::msleep(500); // the replies owed come back; the connection is used again
        const QByteArray after = m_daemon.metrics();
        const auto during = [&](const char* le) {
            return qint64(lateness(after, le) - lateness(before, le));
        };
        if (lateness(before, "") >= 0 && lateness(after, "") >= 0) {
            figure.atDeadline = during("");
            figure.byOneMs = during("0.001");
            figure.byTwoMs = during("0.002");
            figure.byFiveMs = during("0.005");
        }
        printLine("  %3d ms  %-58s p50 %6.1f  p99 %6.1f  max %6.1f ms  (%lld answers, %lld "
                  "errors); tollgated: %lld at the deadline, %lld by +1 ms, %lld by +2 ms, %lld by "
                  "+5 ms\n",
                  timeoutMs, qPrintable(what), figure.load.percentileMs(0.5),
                  figure.load.percentileMs(0.99), figure.load.percentileMs(1.0),
                  static_cast<long long>(figure.load.hits),
                  static_cast<long long>(figure.load.errors),
                  static_cast<long long>(figure.atDeadline), static_cast<long long>(figure.byOneMs),
                  static_cast<long long>(figure.byTwoMs), static_cast<long long>(figure.byFiveMs));
        m_frozen.push_back(std::move(figure));
    };
    // First: a freeze longer than a quarter of the heartbeat drops the events connection, and
    // the refusal cache answers only while that is up (it is back within a second or so).
    frozen(QStringLiteral("gRPC, a subject refused before the freeze (the refusal cache)"), [&] {
        GrpcLoadOptions refused = grpcLoad;
        refused.channels = 1;
        refused.inFlight = 1;
        refused.requests = 1000;
        return runGrpcLoad(refused, subject("fill", "frozen-refused"));
    });
    frozen(QStringLiteral("gRPC, one call at a time"), [&] {
        GrpcLoadOptions one = grpcLoad;
        one.channels = 1;
        one.inFlight = 1;
        one.requests = std::max(100, 5000 / timeoutMs); // about 5 s
        return runGrpcLoad(one, benchUsers());
    });
    frozen(QStringLiteral("gRPC, 2,000 a second on %1 channels (open loop)").arg(m_s.channels),
           [&] {
               GrpcLoadOptions paced = grpcLoad;
               paced.channels = m_s.channels;
               paced.ratePerSecond = 2000;
               paced.duration = kFrozenLoad;
               return runGrpcLoad(paced, benchUsers());
           });
    frozen(QStringLiteral("gRPC, %1 channels x %2 in flight").arg(m_s.channels).arg(m_s.inFlight),
           [&] {
               GrpcLoadOptions many = grpcLoad;
               many.channels = m_s.channels;
               many.inFlight = m_s.inFlight;
               many.duration = kFrozenLoad;
               return runGrpcLoad(many, benchUsers());
           });
    frozen(QStringLiteral("HTTP, 16 connections, 4 requests sent at once on each"), [&] {
        HttpLoadOptions pipelined = httpLoad;
        pipelined.connections = 16;
        pipelined.pipeline = 4;
        pipelined.duration = kFrozenLoad;
        return runHttpLoad(pipelined, [this](quint64) -> QByteArray {
            return "{\"domain\":\"bench\",\"descriptors\":[{\"entries\":[{\"key\":"
                   "\"remote_address\",\"value\":\"" +
                   m_users[m_random() % m_users.size()] + "\"}]}]}";
        });
    });
}

} // namespace tollgate::bench
