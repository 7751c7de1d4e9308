// bench_cluster: Tollgate's cluster pieces on a private three-primary Redis Cluster (the test
// fixture's RedisCluster: loopback ports, temporary directories, removed at the end).
//   * ClusterRouter: SET then GET of N user keys, `--inflight` commands outstanding, each sent to
//     the primary owning its slot;
//   * ClusterScan: every key of the cluster, all primaries at once, against `redis-cli --scan`
//     run on each primary in turn (what an operator would do by hand); and the same on the
//     router's connections with at most 4 batches out, each released on the next event-loop
//     turn (the Subjects stream's flow control, with instant reads);
//   * `tollgatectl bench hit` against the cluster and against a single redis-server started in
//     the same run, same load (--hit-seconds, 8 connections x 16 in flight).
// Prints figures; the goals live with the issue, never in a test.
#include "core/cluster/ClusterRouter.h"
#include "core/cluster/ClusterScan.h"
#include "tests/support/RedisCluster.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTimer>
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

// `tollgatectl --url URL bench hit ...` beside this benchmark: its "N ops/s" figure, or -1.
double benchHit(const QString& url, int seconds)
{
    const QString ctl = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/tollgatectl");
    QProcess run;
    run.setProcessChannelMode(QProcess::MergedChannels);
    run.start(ctl, {QStringLiteral("--url"), url, QStringLiteral("bench"), QStringLiteral("hit"),
                    QStringLiteral("--connections"), QStringLiteral("8"),
                    QStringLiteral("--pipeline"), QStringLiteral("16"), QStringLiteral("--seconds"),
                    QString::number(seconds)});
    run.waitForFinished(-1);
    const QString out = QString::fromUtf8(run.readAll());
    const auto match = QRegularExpression(QStringLiteral("([0-9.]+) ops/s")).match(out);
    if (run.exitCode() != 0 || !match.hasMatch()) {
        std::fprintf(stderr, "bench_cluster: bench hit on %s failed:\n%s\n", qPrintable(url),
                     qPrintable(out));
        return -1;
    }
    return match.captured(1).toDouble();
}

QByteArray userKey(qint64 i)
{
    return "tg:{u" + QByteArray::number(i) + "}:like:fw:60000";
}

// Runs `scan` to its end: the keys it reported (-2 when it failed) and the milliseconds.
std::pair<qint64, qint64> timeScan(ClusterScan& scan)
{
    qint64 scanned = -1;
    QObject::connect(&scan, &ClusterScan::finished, [&](qint64 n) { scanned = n; });
    QObject::connect(&scan, &ClusterScan::failed, [&](const Error&) { scanned = -2; });
    QElapsedTimer clock;
    clock.start();
    scan.start();
    while (scanned == -1)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    return {scanned, clock.elapsed()};
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
    parser.addOption({QStringLiteral("hit-seconds"),
                      QStringLiteral("Seconds of tollgatectl bench hit on each (0 = skip)"),
                      QStringLiteral("s"), QStringLiteral("5")});
    parser.process(app);
    const int hitSeconds = parser.value(QStringLiteral("hit-seconds")).toInt();
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
    const auto [scanned, scanMs] = timeScan(scan);
    options.batchesOut = 4;
    ClusterScan paced(&router, options);
    QObject::connect(&paced, &ClusterScan::batch, &paced, [&paced] {
        QTimer::singleShot(0, &paced, [&paced] { paced.release(); });
    });
    const auto [pacedScanned, pacedMs] = timeScan(paced);

    QElapsedTimer clock;
    clock.start();
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

    // The same hit load on one server and on the cluster, one after the other.
    double singleHits = 0, clusterHits = 0;
    if (hitSeconds > 0) {
        test::RedisServer single;
        if (!single.start()) {
            std::fprintf(stderr, "bench_cluster: %s\n", qPrintable(single.errorString()));
            return 3;
        }
        singleHits = benchHit(single.url(), hitSeconds);
        clusterHits = benchHit(cluster.seedUrl(), hitSeconds);
    }

    std::printf("bench_cluster: 3 primaries on loopback, %lld user keys, %d router commands in "
                "flight\n\n",
                static_cast<long long>(keys), inflight);
    std::printf("| figure | measured |\n|---|---|\n");
    std::printf("| routed SET (each to its slot's primary) | %.0f commands/s |\n", sets);
    std::printf("| routed GET | %.0f commands/s |\n", gets);
    std::printf("| ClusterScan, all primaries at once (COUNT 1000) | %lld keys in %.2f s |\n",
                static_cast<long long>(scanned), double(scanMs) / 1000.0);
    std::printf("| the same on the router's connections, at most 4 batches out | %lld keys in "
                "%.2f s |\n",
                static_cast<long long>(pacedScanned), double(pacedMs) / 1000.0);
    std::printf("| redis-cli --scan on each primary in turn | %lld keys in %.2f s |\n",
                static_cast<long long>(cliKeys), double(cliMs) / 1000.0);
    std::printf("| redirections followed (a stable cluster: expect 0) | %d |\n",
                router.redirects());
    if (hitSeconds > 0) {
        std::printf("\n| tollgatectl bench hit, 8 connections x 16 in flight, %d s | hits/s |\n"
                    "|---|---|\n",
                    hitSeconds);
        std::printf("| one redis-server | %.0f |\n| three-primary cluster (same machine) | %.0f |\n",
                    singleHits, clusterHits);
    }
    return singleHits < 0 || clusterHits < 0 || sets < 0 || gets < 0 || scanned != keys || pacedScanned != keys || cliKeys != keys ? 3 : 0;
}
