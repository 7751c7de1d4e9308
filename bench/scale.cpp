// Scale benchmark: how fast the scripts count, and how the console's background work (SCAN,
// subjects listing, TTL repair scan) behaves with many counters in Redis.
//
//   bench_scale [--url redis://...] [--subjects 100000] [--inflight 256]
//
// Without --url it starts a private redis-server (app/demo/DemoServer). Prints figures; it
// asserts nothing (performance targets are read from here, never from timed tests).
#include "app/demo/DemoServer.h"
#include "core/client/Scan.h"
#include "tollgate/Blocking.h"
#include "tollgate/Limiter.h"
#include "tollgate/PolicyStore.h"
#include "tollgate/Repair.h"
#include "tollgate/Subjects.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>

using namespace tollgate;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Keeps at most `limit` asynchronous operations in flight from this (non-GUI) thread.
class InFlight
{
public:
    explicit InFlight(int limit) : m_limit(limit) {}
    void acquire()
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [this] { return m_count < m_limit; });
        ++m_count;
    }
    void release()
    {
        { std::lock_guard lock(m_mutex); --m_count; }
        m_changed.notify_all();
    }
    void drain()
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [this] { return m_count == 0; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_limit;
    int m_count = 0;
};

struct SeedFigures
{
    double hitsPerSecond = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    qint64 errors = 0;
};

SeedFigures seed(const Limiter& limiter, const Policy& policy, qint64 subjects, qint64 offset,
                 int inflightLimit)
{
    InFlight inflight(inflightLimit);
    std::mutex mutex;
    std::vector<double> latencies;
    latencies.reserve(static_cast<size_t>(subjects));
    qint64 errors = 0;
    const auto start = Clock::now();
    for (qint64 i = 0; i < subjects; ++i) {
        inflight.acquire();
        const auto sent = Clock::now();
        limiter.hit(policy, "user-" + QByteArray::number(offset + i), 1, nullptr,
                    [&, sent](Result<HitResult> hit) {
                        const double ms = secondsSince(sent) * 1000.0;
                        {
                            std::lock_guard lock(mutex);
                            latencies.push_back(ms);
                            if (!hit)
                                ++errors;
                        }
                        inflight.release();
                    });
    }
    inflight.drain();
    SeedFigures figures;
    figures.hitsPerSecond = static_cast<double>(subjects) / secondsSince(start);
    std::sort(latencies.begin(), latencies.end());
    if (!latencies.empty()) {
        figures.p50Ms = latencies[latencies.size() / 2];
        figures.p99Ms = latencies[latencies.size() * 99 / 100];
    }
    figures.errors = errors;
    return figures;
}

int fail(const Error& error)
{
    std::fprintf(stderr, "bench_scale: %s\n", qPrintable(error.toString()));
    return 3;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("url"), QStringLiteral("Redis URL (default: private server)"),
                      QStringLiteral("url")});
    parser.addOption({QStringLiteral("subjects"), QStringLiteral("Counters to create"),
                      QStringLiteral("n"), QStringLiteral("100000")});
    parser.addOption({QStringLiteral("inflight"), QStringLiteral("Hits in flight"),
                      QStringLiteral("n"), QStringLiteral("256")});
    parser.process(app);
    const qint64 subjects = std::max<qint64>(4, parser.value(QStringLiteral("subjects")).toLongLong());
    const int inflight = std::max(1, parser.value(QStringLiteral("inflight")).toInt());

    DemoServer server;
    QString url = parser.value(QStringLiteral("url"));
    if (url.isEmpty()) {
        const Status started = server.start();
        if (!started)
            return fail(started.error());
        url = server.url();
    }
    auto options = ConnectionOptions::fromUrl(url);
    if (!options)
        return fail(options.error());
    options->commandTimeout = std::chrono::seconds(30);
    Client client(*options);
    client.open();
    const KeySchema schema("tgbench");
    Limiter limiter(&client, schema);
    PolicyStore policies(&client, schema);

    std::printf("Tollgate scale benchmark: %lld counters, %d hits in flight, %s\n",
                static_cast<long long>(subjects), inflight, qPrintable(options->endpoint()));
    std::printf("\n%-16s %12s %10s %10s %8s\n", "algorithm", "hits/s", "p50 ms", "p99 ms", "errors");
    const Algorithm algorithms[] = {Algorithm::FixedWindow, Algorithm::SlidingLog,
                                    Algorithm::SlidingWindow, Algorithm::TokenBucket};
    qint64 offset = 0;
    for (Algorithm algorithm : algorithms) {
        Policy policy;
        policy.action = "bench-" + algorithmName(algorithm);
        policy.algorithm = algorithm;
        policy.windows = {{1000, 3'600'000}};
        auto existing = waitFor<Policy>([&](auto done) { policies.get(policy.action, nullptr, done); });
        policy.revision = existing ? existing->revision : 0;
        auto saved = waitFor<qint64>([&](auto done) { policies.save(policy, QStringLiteral("bench"), nullptr, done); });
        if (!saved)
            return fail(saved.error());
        const SeedFigures figures = seed(limiter, policy, subjects / 4, offset, inflight);
        offset += subjects / 4;
        std::printf("%-16s %12.0f %10.2f %10.2f %8lld\n", algorithmName(algorithm).constData(),
                    figures.hitsPerSecond, figures.p50Ms, figures.p99Ms,
                    static_cast<long long>(figures.errors));
    }

    std::printf("\n%-34s %10s %12s\n", "console background work", "seconds", "items");
    ScanOptions scan;
    scan.pattern = schema.allUsersPattern();
    scan.count = 1000;
    auto start = Clock::now();
    auto keys = waitFor<QList<QByteArray>>([&](auto done) { collectKeys(&client, scan, nullptr, done); });
    if (!keys)
        return fail(keys.error());
    std::printf("%-34s %10.2f %12lld\n", "SCAN every key (COUNT 1000)", secondsSince(start),
                static_cast<long long>(keys->size()));

    start = Clock::now();
    // Streamed and counted, not collected: the CLI's and the console's way.
    auto streamed = waitFor<SubjectsProgress>([&](auto done) {
        Subjects(&client, schema)
            .stream({}, [](std::vector<Subject>&, const SubjectsProgress&) { return true; }, done);
    });
    if (!streamed)
        return fail(streamed.error());
    std::printf("%-34s %10.2f %12lld\n", "subjects: streamed, pipelined reads", secondsSince(start),
                static_cast<long long>(streamed->subjects));

    start = Clock::now();
    auto report = waitFor<RepairReport>([&](auto done) {
        Repair(&client, schema).run(RepairOptions{}, {}, nullptr, done);
    });
    if (!report)
        return fail(report.error());
    std::printf("%-34s %10.2f %12lld\n", "keys-without-TTL scan (dry run)", secondsSince(start),
                static_cast<long long>(report->totals.scanned));

    auto info = client.executeSync({"INFO", "memory"});
    if (info) {
        for (const QByteArray& line : info->toBytes().split('\n')) {
            if (line.startsWith("used_memory_human:"))
                std::printf("\nserver memory: %s\n", line.mid(18).trimmed().constData());
        }
    }
    return 0;
}
