// bench_service's table: the figures of every part that ran, in the form of
// docs/performance.md's, with each goal against the gRPC floor of the same run.
#include "bench/hit/ServerFigures.h"
#include "bench/service/ServiceBench.h"

#include <algorithm>

namespace tollgate::bench {

namespace {

const char* verdict(bool met)
{
    return met ? "met" : "**not met**";
}

QString cpuCells(const ServiceRun& run)
{
    return QStringLiteral("%1 / %2 / %3 us, %4 switches")
        .arg(run.clientUs, 0, 'f', 1)
        .arg(run.serverUs, 0, 'f', 1)
        .arg(run.redisUs, 0, 'f', 1)
        .arg(run.switches, 0, 'f', 2);
}

// The most any service could reach against the floor on these shared cores: one that spends
// no CPU of its own beyond the floor's gRPC part, the client as on the floor, and Redis what the
// run's decisions cost it, in scripts alone (whole redis-server).
QString ceiling(const ServiceRun& run, const ServiceRun& floor)
{
    const double floorUs = floor.clientUs + floor.serverUs;
    return QStringLiteral("%1 (%2)")
        .arg(floorUs / (floorUs + run.scriptUs), 0, 'f', 2)
        .arg(floorUs / (floorUs + run.redisUs), 0, 'f', 2);
}

QString percentiles(const HitLoadFigures& load)
{
    return QStringLiteral("%1 / %2 / %3 ms")
        .arg(load.percentileMs(0.5), 0, 'f', 2)
        .arg(load.percentileMs(0.99), 0, 'f', 2)
        .arg(load.percentileMs(0.999), 0, 'f', 2);
}

} // namespace

void ServiceBench::printTable() const
{
    printLine("\n| figure | goal | measured | |\n|---|---|---|---|\n");
    if (m_grpcBest.rate() > 0 && m_floor.rate() > 0) {
        printLine("| gRPC decisions/s, %d channels x %d in flight: tollgated / the floor | | %.0f "
                  "/ %.0f (p99 %.2f / %.2f ms) | |\n",
                  m_s.channels, m_s.inFlight, m_grpcBest.rate(), m_floor.rate(),
                  m_grpcBest.load.percentileMs(0.99), m_floor.load.percentileMs(0.99));
        const auto [low, high] = std::minmax_element(m_floorRatios.begin(), m_floorRatios.end());
        const double best = m_grpcBest.rate() / m_floor.rate();
        printLine("| tollgated / the floor (each round's own) | >= 0.8 | %.2f (%.2f-%.2f) | %s |\n",
                  best, *low, *high, verdict(best >= 0.8));
        printLine("| the ceiling here: the floor's CPU plus redis-server's in scripts (whole) | "
                  "| %s | |\n",
                  qPrintable(ceiling(m_grpcBest, m_floor)));
        printLine("| CPU a decision: client / server / redis-server, server's context switches "
                  "| | tollgated %s; the floor %s | |\n",
                  qPrintable(cpuCells(m_grpcBest)), qPrintable(cpuCells(m_floor)));
    }
    if (m_libraryBest.rate() > 0)
        printLine("| `tollgatectl bench hit`, %d x %d, same server | | %.0f hits/s (tollgated "
                  "%.2f of it, the floor %.2f) | |\n",
                  m_s.channels, m_s.inFlight, m_libraryBest.rate(),
                  m_grpcBest.rate() / m_libraryBest.rate(), m_floor.rate() / m_libraryBest.rate());
    if (m_paced.load.hits > 0 && m_floorPaced.load.hits > 0) {
        const double ratio =
            m_paced.load.percentileMs(0.99) / std::max(m_floorPaced.load.percentileMs(0.99), 1e-9);
        printLine(
            "| open loop at %.0f/s (half the best): p50 / p99 / p99.9, tollgated | | %s | |\n",
            m_pacedTarget, qPrintable(percentiles(m_paced.load)));
        printLine("| the same on the floor | | %s | |\n",
                  qPrintable(percentiles(m_floorPaced.load)));
        printLine("| p99: tollgated / the floor | <= 1.5 | %.2f | %s |\n", ratio,
                  verdict(ratio <= 1.5));
    }
    if (m_cached.rate() > 0 && m_floorMix.rate() > 0) {
        const double ratio = m_cached.rate() / m_floorMix.rate();
        printLine("| %d %% of the requests from refused subjects: decisions/s, cache on / the "
                  "floor | | %.0f / %.0f | |\n",
                  m_s.abuserShare, m_cached.rate(), m_floorMix.rate());
        printLine("| cache on / the floor | >= 0.9 | %.2f | %s |\n", ratio, verdict(ratio >= 0.9));
        printLine("| the ceiling here: the floor's CPU plus redis-server's in scripts (whole) | "
                  "| %s | |\n",
                  qPrintable(ceiling(m_cached, m_floorMix)));
    }
    if (m_cached.rate() > 0 && m_uncached.rate() > 0) {
        printLine("| the same, `--cache-size 0` | | %.0f (cache on / off: %.2fx) | |\n",
                  m_uncached.rate(), m_cached.rate() / m_uncached.rate());
        printLine("| Redis round trips (EVALSHA) per decision, cache on (off) | <= 0.15 | %.3f "
                  "(%.3f) | %s |\n",
                  m_tripsCached, m_tripsUncached,
                  verdict(m_tripsCached >= 0 && m_tripsCached <= 0.15));
    }
    if (m_http.load.hits > 0) {
        QStringList threads;
        double lanes = 0; // CPU seconds of the HTTP threads
        for (const auto& [thread, seconds] : m_httpThreads)
            lanes += thread.startsWith("http") ? seconds : 0;
        int busy = 0; // HTTP threads that did a quarter of their work or more
        for (const auto& [thread, seconds] : m_httpThreads) {
            const double share = seconds / std::max(m_http.load.seconds, 1e-9);
            busy += thread.startsWith("http") && seconds >= lanes / 4 ? 1 : 0;
            threads << QStringLiteral("%1 %2 %")
                           .arg(QString::fromUtf8(thread))
                           .arg(100 * share, 0, 'f', 0);
        }
        printLine("| HTTP POST /v1/decide, %d keep-alive connections | | %.0f decisions/s, p50 "
                  "%.2f ms, p99 %.2f ms, %.1f us of tollgated's CPU%s | |\n",
                  m_s.httpConnections, m_http.rate(), m_http.load.percentileMs(0.5),
                  m_http.load.percentileMs(0.99), m_http.serverUs,
                  m_httpFailed ? "; **tollgated stopped during the run**" : "");
        printLine("| HTTP threads deciding (each a quarter of their CPU or more); tollgated's "
                  "threads, %% of a core | > 1 | %d; %s | %s |\n",
                  busy, qPrintable(threads.join(QStringLiteral(", "))), verdict(busy > 1));
    }
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
    printFrozenTable();
}

void ServiceBench::printFrozenTable() const
{
    if (m_frozen.empty())
        return;
    // Two views of "the timeout + 2 ms": the client's, from when it sent each request to when
    // it took the answer (its own work on the shared cores included), and tollgated's, from each
    // deadline to when it handed the answer on (tollgated_deadline_lateness_seconds).
    printLine("\n| Redis frozen | URL `timeout` | client: p50 / p99 / max | answered by | client's "
              "max at most the timeout + 2 ms | tollgated: answered at the deadline, by +1 ms, "
              "by +2 ms, by +5 ms | all by +2 ms |\n|---|---|---|---|---|---|---|\n");
    for (const FrozenFigure& figure : m_frozen) {
        const double max = figure.load.percentileMs(1.0);
        const QString own = figure.atDeadline < 0 ? QStringLiteral("(no /metrics)")
                                                  : QStringLiteral("%1, %2, %3, %4")
                                                        .arg(figure.atDeadline)
                                                        .arg(figure.byOneMs)
                                                        .arg(figure.byTwoMs)
                                                        .arg(figure.byFiveMs);
        printLine("| %s | %d ms | %.1f / %.1f / %.1f ms | %lld of %lld%s | %s | %s | %s |\n",
                  qPrintable(figure.what), figure.timeoutMs, figure.load.percentileMs(0.5),
                  figure.load.percentileMs(0.99), max, static_cast<long long>(figure.load.hits),
                  static_cast<long long>(figure.load.hits + figure.load.errors),
                  figure.load.errors > 0 ? " (**errors**)" : "",
                  verdict(figure.load.hits > 0 && figure.load.errors == 0 &&
                          max <= figure.timeoutMs + 2),
                  qPrintable(own),
                  verdict(figure.atDeadline >= 0 && figure.byTwoMs == figure.atDeadline));
    }
}

} // namespace tollgate::bench
