// Five parts of bench_service (bench/service.cpp says what each measures).
#include "app/demo/DemoServer.h"
#include "bench/hit/ServerFigures.h"
#include "bench/service/HttpLoad.h"
#include "bench/service/ServiceBench.h"
#include "bench/support/ProcessFigures.h"
#include "envoy/service/ratelimit/v3/rls.pb.h"
#include "tollgate/Blocking.h"
#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QCoreApplication>
#include <QThread>
#include <cstdio>

namespace tollgate::bench {

namespace rls = envoy::service::ratelimit::v3;

namespace {

void printRun(const char* what, const ServiceRun& run)
{
    printLine("  %-34s %9.0f decisions/s  p50 %.2f ms  p99 %.2f ms  (%s)\n", what, run.rate(),
              run.load.percentileMs(0.50), run.load.percentileMs(0.99), qPrintable(run.cpuText()));
}

// tollgatectl bench hit reports its percentiles only, and no server figures.
void printLibraryRun(const ServiceRun& run)
{
    const std::vector<double>& p = run.load.latenciesMs; // {p50, p99}
    printLine("  %-34s %9.0f hits/s       p50 %.2f ms  p99 %.2f ms  (client CPU %.1f us a hit)\n",
              "tollgatectl bench hit (library)", run.rate(), p.size() > 1 ? p[0] : 0.0,
              p.size() > 1 ? p[1] : 0.0, run.clientUs);
}

} // namespace

void ServiceBench::partGrpc()
{
    const bool compare = wants("grpc");
    const int rounds = compare ? m_s.rounds : 1;
    printLine("\ngRPC ShouldRateLimit, one descriptor remote_address=<one of %lld users>, "
              "nothing refused, %d channels x %d in flight; beside the gRPC floor "
              "(bench/service/GrpcFloor: every call answered OK, nothing decided) and "
              "tollgatectl bench hit, in alternating order:\n",
              static_cast<long long>(m_s.users), m_s.channels, m_s.inFlight);
    for (int round = 0; round < rounds && !m_failed; ++round) {
        ServiceRun ours, floor;
        for (const bool first : {true, false}) {
            if (first == (round % 2 == 0)) {
                ours = grpc(benchUsers());
                printRun("gRPC (tollgated)", ours);
            } else if (compare) {
                floor = grpcAt(m_floorServer, benchUsers(), 0, 0, 0);
                floor.server = "the floor";
                printRun("gRPC floor", floor);
            }
        }
        if (ours.rate() > m_grpcBest.rate())
            m_grpcBest = ours;
        if (!compare)
            continue;
        if (floor.rate() > m_floor.rate())
            m_floor = floor;
        if (floor.rate() > 0) {
            m_floorRatios.push_back(ours.rate() / floor.rate());
            printLine("  %-34s %.2f\n", "tollgated / the floor", m_floorRatios.back());
        }
        const ServiceRun library = libraryHits();
        printLibraryRun(library);
        if (library.rate() > m_libraryBest.rate())
            m_libraryBest = library;
    }
}

void ServiceBench::partLatency()
{
    m_pacedTarget = m_grpcBest.rate() / 2;
    if (m_pacedTarget <= 0)
        return;
    printLine("\nopen loop at half the best gRPC rate: %.0f requests/s for %d s, tollgated then "
              "the floor\n",
              m_pacedTarget, m_s.seconds);
    m_paced = grpc(benchUsers(), m_pacedTarget);
    printRun("paced gRPC", m_paced);
    printLine("  %-34s p99.9 %.2f ms, max %.2f ms\n", "", m_paced.load.percentileMs(0.999),
              m_paced.load.percentileMs(1.0));
    m_floorPaced = grpcAt(m_floorServer, benchUsers(), m_pacedTarget, 0, 0);
    m_floorPaced.server = "the floor";
    printRun("the gRPC floor, paced", m_floorPaced);
    printLine("  %-34s p99.9 %.2f ms, max %.2f ms\n", "", m_floorPaced.load.percentileMs(0.999),
              m_floorPaced.load.percentileMs(1.0));
}

void ServiceBench::partHttp()
{
    HttpLoadOptions options;
    options.port = m_daemon.httpPort();
    options.connections = m_s.httpConnections;
    options.duration = std::chrono::seconds(m_s.seconds);
    const auto body = [this](quint64) -> QByteArray {
        return "{\"domain\":\"bench\",\"descriptors\":[{\"entries\":[{\"key\":\"remote_address\","
               "\"value\":\"" +
               m_users[m_random() % m_users.size()] + "\"}]}]}";
    };
    printLine("\nHTTP POST /v1/decide, %d keep-alive connections, one request each in flight:\n",
              options.connections);
    const std::map<QByteArray, double> before = cpuSecondsByThread(m_daemon.pid());
    m_http = measure([&] { return runHttpLoad(options, body); });
    m_httpFailed = m_failed; // the part runs only when nothing failed before
    for (const auto& [thread, seconds] : cpuSecondsByThread(m_daemon.pid())) {
        const auto was = before.find(thread);
        const double used = seconds - (was == before.end() ? 0 : was->second);
        if (used > 0)
            m_httpThreads[thread] = used;
    }
    printRun("HTTP /v1/decide", m_http);
    QStringList threads;
    for (const auto& [thread, seconds] : m_httpThreads)
        threads << QStringLiteral("%1 %2 %").arg(QString::fromUtf8(thread))
                       .arg(100 * seconds / std::max(m_http.load.seconds, 1e-9), 0, 'f', 0);
    printLine("  %-34s tollgated's threads (%% of a core): %s\n", "",
              qPrintable(threads.join(QStringLiteral(", "))));
}

void ServiceBench::partRefusals()
{
    printLine("\n%d %% of the requests from %d subjects over their limit (100 a minute), the "
              "rest from %lld others:\n",
              m_s.abuserShare, m_s.abusers, static_cast<long long>(m_s.normalUsers));
    for (const bool cache : {true, false}) {
        if (!cache) {
            m_daemon.stop();
            if (!startDaemon({QStringLiteral("--cache-size"), QStringLiteral("0")}))
                return;
        }
        grpc(abuseMix(), 0, 0, 1); // every abuser over the limit before the measurement
        // Round trips from the server's own count, which includes no scrape of tollgated.
        const double evalshaBefore = serverFigures(m_admin).evalshaCalls;
        const ServiceRun run = grpc(abuseMix());
        const double evalsha = serverFigures(m_admin).evalshaCalls - evalshaBefore;
        const double trips = run.load.hits > 0 ? evalsha / double(run.load.hits) : -1;
        (cache ? m_cached : m_uncached) = run;
        (cache ? m_tripsCached : m_tripsUncached) = trips;
        printRun(cache ? "refusal cache on (64MB)" : "--cache-size 0", run);
        printLine("  %-34s %.1f %% refused; Redis round trips (EVALSHA) per decision %.3f\n", "",
                  run.load.hits > 0 ? 100.0 * double(run.load.denied) / double(run.load.hits) : 0.0,
                  trips);
        if (!cache)
            continue;
        m_floorMix = grpcAt(m_floorServer, abuseMix(), 0, 0, 0); // the same requests, right after
        m_floorMix.server = "the floor";
        printRun("the gRPC floor, same requests", m_floorMix);
    }
}

void ServiceBench::partMemory()
{
    m_daemon.stop();
    if (!startDaemon({QStringLiteral("--cache-size"), m_s.fillCacheSize}))
        return;
    printLine("\n%lld distinct refused subjects cached (--cache-size %s); their windows filled in "
              "Redis first:\n",
              static_cast<long long>(m_s.fill), qPrintable(m_s.fillCacheSize));
    const KeySchema schema;
    constexpr qint64 kBatch = 10'000;
    for (qint64 first = 0; first < m_s.fill; first += kBatch) {
        std::vector<Command> sets;
        for (qint64 i = first; i < std::min(m_s.fill, first + kBatch); ++i)
            sets.push_back(
                Command{"SET",
                        schema.stateKey("fill-" + QByteArray::number(i), "fill.remote_address",
                                        Algorithm::FixedWindow, 3'600'000),
                        "1", "PX", "3600000"});
        auto written = waitFor<std::vector<Result<Reply>>>([&](auto done) {
            m_admin.executeBatch(std::move(sets), nullptr,
                                 [done](std::vector<Result<Reply>> r) { done(std::move(r)); });
        });
        if (!written || written->empty() || !written->front()) {
            std::fprintf(stderr, "bench_service: seeding the full windows failed\n");
            m_failed = true;
            return;
        }
    }
    // The process's own growth under load first (gRPC's threads and buffers), so that what
    // grows afterwards is the cache.
    grpc(benchUsers(), 0, 0, 2);
    m_rssBeforeKb = m_daemon.rssKb();
    const qint64 batch = m_s.fillBatch;
    const qint64 fill = m_s.fill;
    const ServiceRun run = grpc(
        [batch, fill](quint64 sequence, rls::RateLimitRequest* request) {
            std::vector<QByteArray> users;
            for (qint64 i = qint64(sequence) * batch;
                 i < std::min(fill, qint64(sequence + 1) * batch); ++i)
                users.push_back("fill-" + QByteArray::number(i));
            fillRequest(request, "fill", "remote_address", users);
        },
        0, (fill + batch - 1) / batch, 3600);
    m_fillSeconds = run.load.seconds;
    QThread::msleep(200);
    m_rssAfterKb = m_daemon.rssKb(); // before the scrape, whose answer takes memory too
    const QByteArray metrics = m_daemon.metrics();
    m_entries = TollgatedProcess::sum(metrics, "tollgated_refusal_cache_entries");
    m_cacheBytes = TollgatedProcess::sum(metrics, "tollgated_refusal_cache_bytes");
    if (metrics.isEmpty())
        std::fprintf(stderr, "bench_service: GET /metrics did not answer (%s)\n",
                     qPrintable(m_daemon.endText()));
    printLine("  filled in %.1f s (%lld requests of %lld descriptors, %.0f refused); "
              "tollgated_refusal_cache_entries %.0f, _bytes %.0f; VmRSS %lld -> %lld kB\n",
              m_fillSeconds, static_cast<long long>(run.load.hits), static_cast<long long>(batch),
              double(run.load.denied), m_entries, m_cacheBytes,
              static_cast<long long>(m_rssBeforeKb), static_cast<long long>(m_rssAfterKb));
}

} // namespace tollgate::bench
