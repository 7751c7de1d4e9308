// bench_service: tollgated, the rate limit service, against one private redis-server
// (app/demo/DemoServer), started from the built binary (bench/service/TollgatedProcess), beside
// the gRPC floor (bench/service/GrpcFloor: a server of tollgated's shape that answers every
// call OK and decides nothing; the goals are against it, measured in the same run):
//   grpc      decisions/s through Envoy's ShouldRateLimit (bench/service/GrpcLoad: channels x
//             requests in flight, one descriptor remote_address=<user> under a limit nothing
//             reaches) and the same load on the floor, in rounds of alternating order, each
//             round with `tollgatectl bench hit` at the same concurrency (the library's hits/s);
//   latency   an open loop at half the best gRPC rate on tollgated, then on the floor: p50 /
//             p99 / p99.9 from when each request was due;
//   refusals  90 % of the requests from 10 subjects over their limit (100 a minute), 10 % from
//             many others, with the refusal cache, the same requests on the floor, then with
//             tollgated restarted --cache-size 0: decisions/s and Redis round trips per
//             decision (EVALSHA calls of the server);
//   memory    tollgated's VmRSS before and after 1,000,000 distinct refusals are cached (their
//             windows filled in Redis beforehand, each subject asked once);
//   http      POST /v1/decide on keep-alive connections (bench/service/HttpLoad), and the CPU
//             of each of tollgated's threads meanwhile;
//   frozen    Redis stopped (SIGSTOP) under four loads, tollgated --on-error allow at each
//             URL timeout (bench/service/FrozenRedis): how long each answer takes.
// Each run prints the CPU it cost each process (client, tollgated or the floor, redis-server)
// and the server's context switches, per decision.
//
//   bench_service [--seconds 10] [--rounds 2] [--channels 8] [--in-flight 16] [--users 1000]
//                 [--only grpc,latency,refusals,memory,http,frozen] [--fill 1000000] [--quick]
//                 [--grpc-threads N] [--frozen-timeouts 20,50]
//
// Prints figures and whether each goal is met; asserts nothing.
#include "app/demo/DemoServer.h"
#include "bench/service/GrpcFloor.h"
#include "bench/service/ServiceBench.h"
#include "tollgate/Client.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#include <cstdio>
#include <cstring>

using namespace tollgate;

int main(int argc, char** argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "--serve-floor") == 0)
        return bench::serveGrpcFloor(); // the child partFloor starts
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    bench::ServiceSettings s;
    auto number = [](const char* name, const char* description, auto fallback) {
        return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(description),
                                  QStringLiteral("n"), QString::number(fallback));
    };
    parser.addOptions({
        number("seconds", "Seconds per measured run.", s.seconds),
        number("rounds", "Rounds of gRPC against tollgatectl bench hit, best kept.", s.rounds),
        number("channels", "gRPC channels (and bench hit's connections).", s.channels),
        number("in-flight", "Requests in flight per channel (bench hit's pipeline).", s.inFlight),
        number("users", "Users drawn at random for allowed decisions.", s.users),
        number("http-connections", "Keep-alive HTTP connections.", s.httpConnections),
        number("grpc-threads", "tollgated's --grpc-threads (0: its default).", s.grpcThreads),
        number("abusers", "Subjects over their limit in the refusals run.", s.abusers),
        number("normal-users", "The other subjects of the refusals run.", s.normalUsers),
        number("fill", "Distinct refusals cached in the memory run.", s.fill),
        {QStringLiteral("fill-cache-size"),
         QStringLiteral("tollgated's --cache-size for the memory run."), QStringLiteral("bytes"),
         s.fillCacheSize},
        {QStringLiteral("only"),
         QStringLiteral("Parts to run: grpc,latency,refusals,memory,http,frozen."),
         QStringLiteral("parts"), QStringLiteral("grpc,latency,refusals,memory,http,frozen")},
        {QStringLiteral("frozen-timeouts"),
         QStringLiteral("The Redis URL's timeout (ms) of each frozen round."), QStringLiteral("ms,..."),
         QStringLiteral("20,50")},
        {QStringLiteral("quick"),
         QStringLiteral("A smoke run: 2 s runs, 1 round, 100,000 refusals.")},
    });
    parser.process(app);
    const bool quick = parser.isSet(QStringLiteral("quick"));
    auto value = [&](const char* name, qint64 quickValue) {
        const QString option = QString::fromLatin1(name);
        return quick && !parser.isSet(option)
                   ? quickValue
                   : std::max<qint64>(1, parser.value(option).toLongLong());
    };
    s.seconds = int(value("seconds", 2));
    s.rounds = int(value("rounds", 1));
    s.channels = int(value("channels", s.channels));
    s.inFlight = int(value("in-flight", s.inFlight));
    s.users = value("users", s.users);
    s.httpConnections = int(value("http-connections", s.httpConnections));
    s.grpcThreads = int(parser.value(QStringLiteral("grpc-threads")).toInt());
    s.abusers = int(value("abusers", s.abusers));
    s.normalUsers = value("normal-users", s.normalUsers);
    s.fill = value("fill", 100'000);
    s.fillCacheSize = parser.value(QStringLiteral("fill-cache-size"));
    s.parts = parser.value(QStringLiteral("only")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    s.frozenTimeouts.clear();
    for (const QString& ms :
         parser.value(QStringLiteral("frozen-timeouts")).split(QLatin1Char(','), Qt::SkipEmptyParts))
        s.frozenTimeouts.push_back(std::max(1, ms.toInt()));

    DemoServer redis;
    if (Status started = redis.start(); !started) {
        std::fprintf(stderr, "bench_service: %s\n", qPrintable(started.error().toString()));
        return 3;
    }
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("ratelimit.yaml"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly) || file.write(bench::kServiceConfig) < 0) {
        std::fprintf(stderr, "bench_service: cannot write %s\n", qPrintable(config));
        return 3;
    }
    file.close();
    Client admin(*ConnectionOptions::fromUrl(redis.url()));
    admin.open();
    bench::ServiceBench bench(s, redis, admin, config);
    return bench.run();
}
