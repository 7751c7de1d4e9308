// What the metrics exporter costs Redis at scale: a scrape (time, Redis commands) with many
// subjects and actions, and the background census that visits every key (duration, keys/s).
//
//   bench_metrics [--url redis://...] [--subjects 1000000] [--actions 50] [--scrapes 50]
//
// Without --url it starts a private redis-server (app/demo/DemoServer). Seeds one fixed-window
// counter per subject (SET PX, pipelined), a policy and stats totals per action, and 100
// counters without a TTL for the census to find. Prints a Markdown table; asserts nothing.
#include "app/demo/DemoServer.h"
#include "core/metrics/MetricsExporter.h"
#include "tollgate/Blocking.h"
#include "tollgate/PolicyStore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTcpSocket>
#include <QTimer>
#include <algorithm>
#include <cstdio>

using namespace tollgate;

namespace {

int fail(const QString& message)
{
    std::fprintf(stderr, "bench_metrics: %s\n", qPrintable(message));
    return 3;
}

// INFO stats total_commands_processed: every command the server ran, ours included.
qint64 commandsProcessed(Client& client)
{
    auto info = client.executeSync({"INFO", "stats"});
    for (const QByteArray& line : info ? info->toBytes().split('\n') : QList<QByteArray>{})
        if (line.startsWith("total_commands_processed:"))
            return line.mid(25).trimmed().toLongLong();
    return -1;
}

// One GET /metrics on this thread's event loop (the exporter serves on the same loop).
QByteArray scrape(quint16 port)
{
    QTcpSocket socket;
    QByteArray answer;
    QEventLoop loop;
    QObject::connect(&socket, &QTcpSocket::connected,
                     [&] { socket.write("GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n"); });
    QObject::connect(&socket, &QTcpSocket::readyRead, [&] { answer += socket.readAll(); });
    QObject::connect(&socket, &QTcpSocket::disconnected, &loop, &QEventLoop::quit);
    QTimer::singleShot(60'000, &loop, &QEventLoop::quit);
    socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    loop.exec();
    return answer;
}

double gauge(const QByteArray& exposition, const QByteArray& name)
{
    for (const QByteArray& line : exposition.split('\n'))
        if (line.startsWith(QByteArray(name + ' ')))
            return line.mid(name.size() + 1).toDouble();
    return -1;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("url"), QStringLiteral("Redis URL (default: private server)"),
         QStringLiteral("url")},
        {QStringLiteral("subjects"), QStringLiteral("Subjects to seed"), QStringLiteral("n"),
         QStringLiteral("1000000")},
        {QStringLiteral("actions"), QStringLiteral("Actions (policies)"), QStringLiteral("n"),
         QStringLiteral("50")},
        {QStringLiteral("scrapes"), QStringLiteral("Scrapes to time"), QStringLiteral("n"),
         QStringLiteral("50")},
    });
    parser.process(app);
    const qint64 subjects =
        std::max<qint64>(1, parser.value(QStringLiteral("subjects")).toLongLong());
    const int actions = std::max(1, parser.value(QStringLiteral("actions")).toInt());
    const int scrapes = std::max(1, parser.value(QStringLiteral("scrapes")).toInt());

    DemoServer server;
    QString url = parser.value(QStringLiteral("url"));
    if (url.isEmpty()) {
        if (const Status started = server.start(); !started)
            return fail(started.error().message);
        url = server.url();
    }
    auto options = ConnectionOptions::fromUrl(url);
    if (!options)
        return fail(options.error().message);
    options->commandTimeout = std::chrono::seconds(60);
    Client client(*options);
    client.open();
    Client probe(*options); // INFO on its own connection
    probe.open();
    const KeySchema schema("tgbench");

    // Seed: policies, stats totals, one counter per subject, 100 counters without a TTL.
    QElapsedTimer clock;
    clock.start();
    PolicyStore policies(&client, schema);
    for (int a = 0; a < actions; ++a) {
        Policy policy;
        policy.action = "action-" + QByteArray::number(a);
        policy.windows = {{1000, 3'600'000}};
        auto existing =
            waitFor<Policy>([&](auto done) { policies.get(policy.action, nullptr, done); });
        policy.revision = existing ? existing->revision : 0;
        auto saved = waitFor<qint64>(
            [&](auto done) { policies.save(policy, QStringLiteral("bench"), nullptr, done); });
        if (!saved)
            return fail(saved.error().message);
        auto totals = client.executeSync({"HSET", schema.statsKey(policy.action), "total:h", "1000",
                                          "total:c", "1000", "total:w", "10", "total:d", "5",
                                          "total:b", "1"});
        if (!totals)
            return fail(totals.error().message);
    }
    constexpr qint64 kBatch = 10'000;
    for (qint64 first = 0; first < subjects; first += kBatch) {
        std::vector<Command> sets;
        for (qint64 i = first; i < std::min(subjects, first + kBatch); ++i) {
            const QByteArray key = schema.stateKey("user-" + QByteArray::number(i),
                                                   "action-" + QByteArray::number(i % actions),
                                                   Algorithm::FixedWindow, 3'600'000);
            sets.push_back(i < 100 ? Command{"SET", key, "1"}
                                   : Command{"SET", key, "1", "PX", "3600000"});
        }
        auto written = waitFor<std::vector<Result<Reply>>>([&](auto done) {
            client.executeBatch(std::move(sets), nullptr,
                                [done](std::vector<Result<Reply>> r) { done(std::move(r)); });
        });
        if (!written || written->empty() || !written->front())
            return fail(QStringLiteral("seeding failed"));
    }
    std::printf("seeded %lld subjects over %d actions in %.1f s (%s)\n\n",
                static_cast<long long>(subjects), actions, clock.elapsed() / 1000.0,
                qPrintable(options->endpoint()));

    // The census as the exporter runs it (console pace: 20 ms between SCAN calls), then unpaced.
    std::printf("| figure | value |\n|---|---|\n");
    for (const auto pause : {std::chrono::milliseconds(20), std::chrono::milliseconds(0)}) {
        KeyCensusOptions censusOptions;
        censusOptions.pause = pause;
        censusOptions.interval = std::chrono::hours(1);
        KeyCensus census(&client, schema, censusOptions);
        QEventLoop loop;
        QObject::connect(&census, &KeyCensus::passFinished, &loop, &QEventLoop::quit);
        QObject::connect(&census, &KeyCensus::passFailed, &loop, &QEventLoop::quit);
        const qint64 before = commandsProcessed(probe);
        census.start();
        loop.exec();
        const qint64 commands = commandsProcessed(probe) - before - 1;
        if (!census.last())
            return fail(QStringLiteral("census failed"));
        const CensusResult& c = *census.last();
        qint64 counted = 0;
        for (const auto& [action, n] : c.subjects)
            counted += n;
        std::printf("| census, %lld ms between SCAN calls: duration | %.1f s |\n",
                    static_cast<long long>(pause.count()), c.durationSeconds);
        std::printf("| census, %lld ms pause: keys scanned, rate | %lld, %.0f keys/s |\n",
                    static_cast<long long>(pause.count()), static_cast<long long>(c.keysScanned),
                    c.keysScanned / std::max(1e-9, c.durationSeconds));
        std::printf("| census, %lld ms pause: Redis commands | %lld (%.2f per key) |\n",
                    static_cast<long long>(pause.count()), static_cast<long long>(commands),
                    double(commands) / std::max<qint64>(1, c.keysScanned));
        std::printf("| census, %lld ms pause: subjects, keys without TTL found | %lld, %lld |\n",
                    static_cast<long long>(pause.count()), static_cast<long long>(counted),
                    static_cast<long long>(c.keysWithoutTtl));
    }

    // Scrapes over HTTP once its first census pass is over (the next is an hour away).
    ExporterOptions exporterOptions;
    exporterOptions.port = 0;
    exporterOptions.census.interval = std::chrono::hours(1);
    MetricsExporter exporter(&client, schema, exporterOptions);
    if (const Status started = exporter.start(); !started)
        return fail(started.error().message);
    QByteArray last;
    for (int i = 0; i < 3000 && gauge(last, "tollgate_census_passes_total") < 1; ++i) {
        QEventLoop wait;
        QTimer::singleShot(100, &wait, &QEventLoop::quit);
        wait.exec();
        last = scrape(exporter.port());
    }
    std::vector<double> ms;
    const qint64 before = commandsProcessed(probe);
    for (int i = 0; i < scrapes; ++i) {
        clock.restart();
        last = scrape(exporter.port());
        ms.push_back(clock.nsecsElapsed() / 1e6);
    }
    const double commands = double(commandsProcessed(probe) - before - 1) / scrapes;
    std::sort(ms.begin(), ms.end());
    std::printf("| scrape over HTTP: p50 / max | %.2f ms / %.2f ms |\n", ms[ms.size() / 2],
                ms.back());
    std::printf(
        "| scrape: Redis time inside it (tollgate_exporter_scrape_duration_seconds) | %.2f ms |\n",
        gauge(last, "tollgate_exporter_scrape_duration_seconds") * 1000);
    std::printf("| scrape: Redis commands (server's count / exporter's own) | %.1f / %.0f |\n",
                commands, gauge(last, "tollgate_exporter_scrape_redis_commands"));
    std::printf("| scrape: exposition size | %lld bytes |\n", static_cast<long long>(last.size()));
    return 0;
}
