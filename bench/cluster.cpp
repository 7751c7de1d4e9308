// bench_cluster: Tollgate's cluster pieces on a private three-primary Redis Cluster (the test
// fixture's RedisCluster: loopback ports, temporary directories, removed at the end).
//   * ClusterRouter: SET then GET of N user keys, `--inflight` commands outstanding, each sent to
//     the primary owning its slot;
//   * ClusterScan: every key of the cluster, all primaries at once, against `redis-cli --scan`
//     run on each primary in turn (what an operator would do by hand).
// Prints figures; the goals live with the issue, never in a test.
#include "core/cluster/ClusterRouter.h"
#include "core/cluster/ClusterScan.h"
#include "tests/support/RedisCluster.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <cstdio>
#include <functional>

using namespace tollgate;

namespace {

// Runs `count` commands made by `make(i)` through the router with `inflight` outstanding;
// returns commands per second, or -1 on the first error.
double drive(ClusterRouter& router, qint64 count, int inflight,
             const std::function<Command(qint64)>& make)
{
    qint64 next = 0, done = 0;
    bool failed = false;
    QObject context;
    std::function<void()> issue = [&] {
        if (next >= count || failed)
            return;
        router.execute(make(next++), &context, [&](Result<Reply> reply) {
            ++done;
            if (!reply) {
                std::fprintf(stderr, "bench_cluster: %s\n", qPrintable(reply.error().toString()));
                failed = true;
            }
            issue();
        });
    };
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < inflight; ++i)
        issue();
    while (done < next || (next < count && !failed))
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    return failed ? -1 : double(count) / (double(clock.elapsed()) / 1000.0);
}

QByteArray userKey(qint64 i)
{
    return "tg:{u" + QByteArray::number(i) + "}:like:fw:60000";
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("keys"), QStringLiteral("User keys to write and scan"),
                      QStringLiteral("n"), QStringLiteral("300000")});
    parser.addOption({QStringLiteral("inflight"), QStringLiteral("Router commands in flight"),
                      QStringLiteral("n"), QStringLiteral("256")});
    parser.process(app);
    const qint64 keys = std::max<qint64>(1, parser.value(QStringLiteral("keys")).toLongLong());
    const int inflight = std::max(1, parser.value(QStringLiteral("inflight")).toInt());

    test::RedisCluster cluster;
    if (!cluster.start(3, 0)) {
        std::fprintf(stderr, "bench_cluster: %s\n", qPrintable(cluster.errorString()));
        return 3;
    }
    const ConnectionOptions seed = *ConnectionOptions::fromUrl(cluster.seedUrl());
    ClusterRouter router(seed);
    router.open();
    while (!router.isReady())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);

    const double sets = drive(router, keys, inflight, [](qint64 i) {
        return Command{"SET", userKey(i), "1", "PX", "3600000"};
    });
    const double gets = drive(router, keys, inflight, [](qint64 i) {
        return Command{"GET", userKey(i)};
    });

    ClusterScan::Options options;
    options.scan.pattern = "tg:{*";
    options.scan.count = 1000;
    ClusterScan scan(seed, options);
    qint64 scanned = -1;
    QObject::connect(&scan, &ClusterScan::finished, [&](qint64 n) { scanned = n; });
    QObject::connect(&scan, &ClusterScan::failed, [&](const Error&) { scanned = -2; });
    QElapsedTimer clock;
    clock.start();
    scan.start();
    while (scanned == -1)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    const qint64 scanMs = clock.elapsed();

    clock.restart();
    qint64 cliKeys = 0;
    for (int n = 0; n < cluster.size(); ++n) {
        QProcess cli;
        cli.start(QStringLiteral("bash"),
                  {QStringLiteral("-c"), QStringLiteral("%1 -p %2 --scan --pattern 'tg:{*' | wc -l")
                                             .arg(test::RedisCluster::redisCliPath())
                                             .arg(cluster.node(n).port())});
        cli.waitForFinished(-1);
        cliKeys += cli.readAllStandardOutput().trimmed().toLongLong();
    }
    const qint64 cliMs = clock.elapsed();

    std::printf("bench_cluster: 3 primaries on loopback, %lld user keys, %d router commands in "
                "flight\n\n",
                static_cast<long long>(keys), inflight);
    std::printf("| figure | measured |\n|---|---|\n");
    std::printf("| routed SET (each to its slot's primary) | %.0f commands/s |\n", sets);
    std::printf("| routed GET | %.0f commands/s |\n", gets);
    std::printf("| ClusterScan, all primaries at once (COUNT 1000) | %lld keys in %.2f s |\n",
                static_cast<long long>(scanned), double(scanMs) / 1000.0);
    std::printf("| redis-cli --scan on each primary in turn | %lld keys in %.2f s |\n",
                static_cast<long long>(cliKeys), double(cliMs) / 1000.0);
    std::printf("| redirections followed (a stable cluster: expect 0) | %d |\n",
                router.redirects());
    return sets < 0 || gets < 0 || scanned != keys || cliKeys != keys ? 3 : 0;
}
