#include "bench/service/ServiceBench.h"

#include "app/demo/DemoServer.h"
#include "bench/hit/ServerFigures.h"
#include "bench/support/ProcessFigures.h"
#include "envoy/service/ratelimit/v3/rls.pb.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <cstdio>

namespace tollgate::bench {

namespace rls = envoy::service::ratelimit::v3;

const char kServiceConfig[] = R"(domain: bench
descriptors:
  - key: remote_address
    rate_limit: {unit: hour, requests_per_unit: 1000000000}
    tollgate: {windows: "1h:1000000000"}
---
domain: abuse
descriptors:
  - key: remote_address
    rate_limit: {unit: minute, requests_per_unit: 100}
---
domain: fill
descriptors:
  - key: remote_address
    rate_limit: {unit: hour, requests_per_unit: 1}
    tollgate: {windows: "1h:1"}
)";

QString ServiceRun::cpuText() const
{
    return QStringLiteral("CPU per decision: client %1 us, %2 %3 us, redis-server %4 us (in "
                          "scripts %5 us); %6 context switches")
        .arg(clientUs, 0, 'f', 1)
        .arg(QLatin1String(server))
        .arg(serverUs, 0, 'f', 1)
        .arg(redisUs, 0, 'f', 1)
        .arg(scriptUs, 0, 'f', 1)
        .arg(switches, 0, 'f', 2);
}

ServiceBench::ServiceBench(ServiceSettings settings, DemoServer& redis, Client& admin,
                           QString configPath)
    : m_s(std::move(settings)), m_redis(redis), m_admin(admin), m_config(std::move(configPath))
{
    for (qint64 i = 0; i < m_s.users; ++i)
        m_users.push_back("bench-" + QByteArray::number(i));
}

bool ServiceBench::startDaemon(const QStringList& extraArgs, const QString& urlQuery)
{
    QStringList args = extraArgs;
    if (m_s.grpcThreads > 0)
        args << QStringLiteral("--grpc-threads") << QString::number(m_s.grpcThreads);
    if (m_daemon.start(m_config, m_redis.url() + urlQuery, args))
        return true;
    std::fprintf(stderr, "bench_service: %s\n", qPrintable(m_daemon.errorString()));
    m_failed = true;
    return false;
}

bool ServiceBench::startFloor()
{
    if (m_floorServer.pid() > 0 && m_floorServer.endText().isEmpty())
        return true;
    m_floorServer.setProgram(QCoreApplication::applicationFilePath(),
                             {QStringLiteral("--serve-floor")});
    if (m_floorServer.start(m_config, m_redis.url()))
        return true;
    std::fprintf(stderr, "bench_service: the gRPC floor: %s\n",
                 qPrintable(m_floorServer.errorString()));
    m_failed = true;
    return false;
}

ServiceRun ServiceBench::measure(const std::function<HitLoadFigures()>& load,
                                 TollgatedProcess& daemon)
{
    const auto scriptUsec = [this] {
        const ServerFigures figures = serverFigures(m_admin);
        return figures.evalshaCalls * figures.evalshaUsecPerCall;
    };
    const double server = daemon.cpuSeconds(), redis = serverCpuSeconds(m_admin);
    const double scripts = scriptUsec();
    const qint64 switches = contextSwitches(daemon.pid());
    ServiceRun run;
    run.load = load();
    const double decisions = double(std::max<qint64>(1, run.load.hits));
    run.clientUs = run.load.cpuSeconds * 1e6 / decisions;
    run.serverUs = (daemon.cpuSeconds() - server) * 1e6 / decisions;
    run.redisUs = (serverCpuSeconds(m_admin) - redis) * 1e6 / decisions;
    run.scriptUs = (scriptUsec() - scripts) / decisions;
    run.switches = double(contextSwitches(daemon.pid()) - switches) / decisions;
    if (run.load.firstError) {
        std::fprintf(stderr, "bench_service: %lld errors, the first: %s\n",
                     static_cast<long long>(run.load.errors),
                     qPrintable(run.load.firstError->message));
        m_failed = m_failed || run.load.hits == 0;
    }
    if (const QString end = daemon.endText(); !end.isEmpty()) {
        std::fprintf(stderr, "bench_service: tollgated stopped during the run: %s; its log:\n%s\n",
                     qPrintable(end), daemon.log().right(2000).constData());
        m_failed = true;
    }
    return run;
}

ServiceRun ServiceBench::grpc(const RequestMaker& make, double rate, qint64 requests, int seconds)
{
    return grpcAt(m_daemon, make, rate, requests, seconds);
}

ServiceRun ServiceBench::grpcAt(TollgatedProcess& server, const RequestMaker& make, double rate,
                                qint64 requests, int seconds)
{
    GrpcLoadOptions load;
    load.target = QStringLiteral("127.0.0.1:%1").arg(server.grpcPort());
    load.channels = m_s.channels;
    load.inFlight = m_s.inFlight;
    load.duration = std::chrono::seconds(seconds > 0 ? seconds : m_s.seconds);
    load.requests = requests;
    load.ratePerSecond = rate;
    return measure([&] { return runGrpcLoad(load, make); }, server);
}

ServiceRun ServiceBench::libraryHits()
{
    const QString ctl =
        qEnvironmentVariable("TOLLGATECTL", QCoreApplication::applicationDirPath() +
                                                QStringLiteral("/../app/tollgatectl"));
    return measure([&] {
        QProcess run;
        run.start(ctl, {QStringLiteral("--url"), m_redis.url(), QStringLiteral("--json"),
                        QStringLiteral("bench"), QStringLiteral("hit"),
                        QStringLiteral("--connections"), QString::number(m_s.channels),
                        QStringLiteral("--pipeline"), QString::number(m_s.inFlight),
                        QStringLiteral("--seconds"), QString::number(m_s.seconds),
                        QStringLiteral("--users"), QString::number(m_s.users)});
        run.waitForFinished(-1);
        const QJsonObject out = QJsonDocument::fromJson(run.readAllStandardOutput()).object();
        HitLoadFigures figures;
        figures.hits = out.value(QStringLiteral("ops")).toInteger();
        figures.seconds = out.value(QStringLiteral("seconds")).toDouble();
        figures.cpuSeconds = out.value(QStringLiteral("client_cpu_us_per_hit")).toDouble() *
                             double(figures.hits) / 1e6;
        // Only its percentiles come back: p50 and p99 stand for the whole distribution.
        figures.latenciesMs = {out.value(QStringLiteral("p50_ms")).toDouble(),
                               out.value(QStringLiteral("p99_ms")).toDouble()};
        if (run.exitCode() != 0 || figures.hits == 0) {
            figures.errors = 1;
            figures.firstError =
                Error{ErrorKind::Io, QStringLiteral("tollgatectl bench hit: ") +
                                         QString::fromUtf8(run.readAllStandardError())};
        }
        return figures;
    });
}

RequestMaker ServiceBench::benchUsers()
{
    return [this](quint64, rls::RateLimitRequest* request) {
        fillRequest(request, "bench", "remote_address", {m_users[m_random() % m_users.size()]});
    };
}

RequestMaker ServiceBench::abuseMix()
{
    return [this](quint64, rls::RateLimitRequest* request) {
        const quint32 draw = quint32(m_random());
        const bool abuser = int(draw % 100) < m_s.abuserShare;
        const quint64 n = (draw / 100) % quint64(abuser ? m_s.abusers : m_s.normalUsers);
        const QByteArray user =
            (abuser ? QByteArray("abuser-") : QByteArray("user-")) + QByteArray::number(n);
        fillRequest(request, "abuse", "remote_address", {user});
    };
}

int ServiceBench::run()
{
    printLine("bench_service: tollgated %s, redis-server on 127.0.0.1:%d, %d channels x %d in "
              "flight, %d s a run\n",
              qPrintable(TollgatedProcess::binaryPath()), int(m_redis.port()), m_s.channels,
              m_s.inFlight, m_s.seconds);
    if (!startDaemon() || !startFloor())
        return 3;
    if (wants("grpc") || wants("latency"))
        partGrpc();
    if (wants("latency") && !m_failed)
        partLatency();
    if (wants("refusals") && !m_failed)
        partRefusals();
    if (wants("memory") && !m_failed)
        partMemory();
    if (wants("http") && !m_failed) {
        m_daemon.stop(); // a tollgated of the default settings
        if (startDaemon())
            partHttp();
    }
    m_floorServer.stop();
    if (wants("frozen") && !m_failed)
        partFrozen();
    m_daemon.stop();
    printTable();
    return m_failed ? 3 : 0;
}

} // namespace tollgate::bench
