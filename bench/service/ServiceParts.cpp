// The five parts of bench_service and its table (bench/service.cpp says what each measures).
#include "app/demo/DemoServer.h"
#include "bench/hit/ServerFigures.h"
#include "bench/service/HttpLoad.h"
#include "bench/service/ServiceBench.h"
#include "core/client/Blocking.h"
#include "core/client/Client.h"
#include "core/keys/KeySchema.h"
#include "envoy/service/ratelimit/v3/rls.pb.h"

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

const char* verdict(bool met)
{
    return met ? "met" : "**not met**";
}

} // namespace

void ServiceBench::partGrpc()
{
    const bool compare = wants("grpc");
    const int rounds = compare ? m_s.rounds : 1;
    printLine("\ngRPC ShouldRateLimit, one descriptor remote_address=<one of %lld users>, "
              "nothing refused; beside tollgatectl bench hit (%d connections x %d in flight), "
              "alternating:\n",
              static_cast<long long>(m_s.users), m_s.channels, m_s.inFlight);
    for (int round = 0; round < rounds && !m_failed; ++round) {
        for (const bool grpcTurn : {round % 2 == 0, round % 2 == 1}) {
            if (grpcTurn) {
                const ServiceRun run = grpc(benchUsers());
                printRun("gRPC (tollgated)", run);
                if (run.rate() > m_grpcBest.rate())
                    m_grpcBest = run;
            } else if (compare) {
                const ServiceRun run = libraryHits();
                printLibraryRun(run);
                if (run.rate() > m_libraryBest.rate())
                    m_libraryBest = run;
            }
        }
    }
}

void ServiceBench::partFloor()
{
    printLine("\nthe same load on the gRPC floor (bench/service/GrpcFloor: every call answered OK, "
              "nothing decided):\n");
    TollgatedProcess floor;
    floor.setProgram(QCoreApplication::applicationFilePath(), {QStringLiteral("--serve-floor")});
    if (!floor.start(m_config, m_redis.url())) {
        std::fprintf(stderr, "bench_service: the gRPC floor: %s\n", qPrintable(floor.errorString()));
        m_failed = true;
        return;
    }
    m_floor = grpcAt(floor, benchUsers(), 0, 0, 0);
    m_floor.server = "the floor";
    printRun("gRPC floor", m_floor);
    if (m_pacedTarget <= 0)
        return;
    m_floorPaced = grpcAt(floor, benchUsers(), m_pacedTarget, 0, 0);
    m_floorPaced.server = "the floor";
    printRun(qPrintable(QStringLiteral("gRPC floor paced at %1/s").arg(m_pacedTarget, 0, 'f', 0)),
             m_floorPaced);
    printLine("  %-34s p99.9 %.2f ms, max %.2f ms\n", "", m_floorPaced.load.percentileMs(0.999),
              m_floorPaced.load.percentileMs(1.0));
}

void ServiceBench::partLatency()
{
    m_pacedTarget = m_grpcBest.rate() / 2;
    if (m_pacedTarget <= 0)
        return;
    printLine("\nopen loop at half the best gRPC rate: %.0f requests/s for %d s\n", m_pacedTarget,
              m_s.seconds);
    m_paced = grpc(benchUsers(), m_pacedTarget);
    printRun("paced gRPC", m_paced);
    printLine("  %-34s p99.9 %.2f ms, max %.2f ms\n", "", m_paced.load.percentileMs(0.999),
              m_paced.load.percentileMs(1.0));
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
    m_http = measure([&] { return runHttpLoad(options, body); });
    m_httpFailed = m_failed; // the part runs only when nothing failed before
    printRun("HTTP /v1/decide", m_http);
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

void ServiceBench::printTable() const
{
    printLine("\n| figure | goal | measured | |\n|---|---|---|---|\n");
    if (m_grpcBest.rate() > 0 && m_libraryBest.rate() > 0) {
        const double ratio = m_grpcBest.rate() / m_libraryBest.rate();
        printLine("| gRPC decisions/s, %d channels x %d in flight | | %.0f (p99 %.2f ms) | |\n",
                  m_s.channels, m_s.inFlight, m_grpcBest.rate(),
                  m_grpcBest.load.percentileMs(0.99));
        printLine("| `tollgatectl bench hit`, %d x %d, same server | | %.0f hits/s | |\n",
                  m_s.channels, m_s.inFlight, m_libraryBest.rate());
        printLine("| gRPC / library | >= 0.7 | %.2f | %s |\n", ratio, verdict(ratio >= 0.7));
    }
    if (m_floor.rate() > 0 && m_libraryBest.rate() > 0) {
        printLine("| gRPC floor (answers OK, decides nothing), same load | | %.0f decisions/s, %.2f "
                  "of the library (server %.1f us, client %.1f us a call) | |\n",
                  m_floor.rate(), m_floor.rate() / m_libraryBest.rate(), m_floor.serverUs,
                  m_floor.clientUs);
        printLine("| tollgated / the floor: decisions/s; CPU a decision | | %.2f; %.1f us over the "
                  "floor's | |\n",
                  m_grpcBest.rate() / m_floor.rate(), m_grpcBest.serverUs - m_floor.serverUs);
    }
    if (m_paced.load.hits > 0) {
        const double p99 = m_paced.load.percentileMs(0.99);
        printLine("| open loop at %.0f/s (half the max): p50 / p99 / p99.9 | p99 < 2 ms | %.2f / "
                  "%.2f / %.2f ms | %s |\n",
                  m_pacedTarget, m_paced.load.percentileMs(0.5), p99,
                  m_paced.load.percentileMs(0.999), verdict(p99 < 2));
    }
    if (m_floorPaced.load.hits > 0)
        printLine("| the gRPC floor at the same rate: p50 / p99 / p99.9 | | %.2f / %.2f / %.2f ms "
                  "| |\n",
                  m_floorPaced.load.percentileMs(0.5), m_floorPaced.load.percentileMs(0.99),
                  m_floorPaced.load.percentileMs(0.999));
    if (m_cached.rate() > 0 && m_uncached.rate() > 0) {
        const double ratio = m_cached.rate() / m_uncached.rate();
        printLine("| %d %% refused subjects: decisions/s, cache on / --cache-size 0 | | %.0f / "
                  "%.0f | |\n",
                  m_s.abuserShare, m_cached.rate(), m_uncached.rate());
        printLine("| cache on / off | >= 5x | %.2fx | %s |\n", ratio, verdict(ratio >= 5));
        printLine("| Redis round trips (EVALSHA) per decision, cache on (off) | <= 0.15 | %.3f "
                  "(%.3f) | %s |\n",
                  m_tripsCached, m_tripsUncached,
                  verdict(m_tripsCached >= 0 && m_tripsCached <= 0.15));
    }
    if (m_http.load.hits > 0)
        printLine("| HTTP POST /v1/decide, %d keep-alive connections | | %.0f decisions/s, p50 "
                  "%.2f ms, p99 %.2f ms%s | |\n",
                  m_s.httpConnections, m_http.rate(), m_http.load.percentileMs(0.5),
                  m_http.load.percentileMs(0.99),
                  m_httpFailed ? "; **tollgated stopped during the run**" : "");
    if (m_rssAfterKb > 0) {
        const double grown = double(m_rssAfterKb - m_rssBeforeKb) * 1024;
        printLine("| VmRSS of tollgated before / after %lld refusals | | %.0f / %.0f MB (+%.0f MB, "
                  "%.0f bytes a refusal) | |\n",
                  static_cast<long long>(m_s.fill), double(m_rssBeforeKb) / 1024,
                  double(m_rssAfterKb) / 1024, grown / 1048576, grown / double(m_s.fill));
    }
    if (m_rssAfterKb > 0 && m_entries > 0) {
        const double grown = double(m_rssAfterKb - m_rssBeforeKb) * 1024;
        printLine("| tollgated_refusal_cache_entries after %lld refusals | %lld | %.0f | %s |\n",
                  static_cast<long long>(m_s.fill), static_cast<long long>(m_s.fill), m_entries,
                  verdict(m_entries >= double(m_s.fill)));
        printLine("| bytes per cached refusal: RSS / the cache's own count | | %.0f / %.0f | |\n",
                  grown / m_entries, m_cacheBytes / m_entries);
        printLine("| refusals the default 64MB holds (by its count) | | %.0f | |\n",
                  double(64LL << 20) / (m_cacheBytes / m_entries));
    }
}

} // namespace tollgate::bench
