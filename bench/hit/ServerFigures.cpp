#include "bench/hit/ServerFigures.h"

#include "core/limiter/HitLoad.h"

#include <QProcess>
#include <QStandardPaths>
#include <cstdio>
#include <map>
#include <sys/resource.h>

namespace tollgate::bench {

Reply command(Client& client, const Command& args)
{
    auto reply = client.executeSync(args);
    if (!reply) {
        std::fprintf(stderr, "%s failed: %s\n", args.first().constData(),
                     qPrintable(reply.error().toString()));
        std::exit(3);
    }
    return *reply;
}

namespace {

// INFO commandstats: command -> {calls, usec}.
std::map<QByteArray, std::pair<double, double>> commandStats(Client& client)
{
    std::map<QByteArray, std::pair<double, double>> stats;
    const QByteArray info = command(client, {"INFO", "commandstats"}).toBytes();
    for (const QByteArray& line : info.split('\n')) {
        if (!line.startsWith("cmdstat_"))
            continue;
        const qsizetype colon = line.indexOf(':');
        std::pair<double, double> entry;
        for (const QByteArray& field : line.mid(colon + 1).trimmed().split(',')) {
            if (field.startsWith("calls="))
                entry.first = field.mid(6).toDouble();
            else if (field.startsWith("usec="))
                entry.second = field.mid(5).toDouble();
        }
        stats[line.mid(8, colon - 8)] = entry;
    }
    return stats;
}

} // namespace

ServerFigures serverFigures(Client& client)
{
    ServerFigures figures;
    for (const auto& [name, entry] : commandStats(client)) {
        figures.totalUsec += entry.second;
        if (name == "evalsha" && entry.first > 0) {
            figures.evalshaCalls = entry.first;
            figures.evalshaUsecPerCall = entry.second / entry.first;
        }
    }
    return figures;
}

BenchmarkRun redisBenchmark(quint16 port, Concurrency c, qint64 requests, const QStringList& args)
{
    static const QString program =
        QStandardPaths::findExecutable(QStringLiteral("redis-benchmark"));
    if (program.isEmpty()) {
        std::fprintf(stderr, "redis-benchmark not found (apt install redis-tools)\n");
        std::exit(3);
    }
    QProcess process;
    const double cpuBefore = cpuSeconds(RUSAGE_CHILDREN);
    process.start(program,
                  QStringList{QStringLiteral("-h"), QStringLiteral("127.0.0.1"),
                              QStringLiteral("-p"), QString::number(port), QStringLiteral("-c"),
                              QString::number(c.connections), QStringLiteral("-P"),
                              QString::number(c.pipeline), QStringLiteral("-n"),
                              QString::number(requests), QStringLiteral("--csv")} +
                      args);
    process.waitForFinished(-1);
    BenchmarkRun run;
    run.cpuMicrosPerOp = (cpuSeconds(RUSAGE_CHILDREN) - cpuBefore) * 1e6 / double(requests);
    const QList<QByteArray> lines = process.readAllStandardOutput().trimmed().split('\n');
    const QList<QByteArray> fields = lines.last().split(',');
    if (fields.size() > 1)
        run.opsPerSecond = QByteArray(fields[1]).replace('"', "").toDouble();
    return run;
}

} // namespace tollgate::bench
