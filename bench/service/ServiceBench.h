#pragma once

#include "bench/service/GrpcLoad.h"
#include "bench/service/TollgatedProcess.h"
#include "core/limiter/HitLoad.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <random>
#include <vector>

namespace tollgate {
class Client;
class DemoServer;
} // namespace tollgate

// bench_service's runs (bench/service.cpp has the options): one redis-server, one tollgated at
// a time beside the gRPC floor, and the figures of the table they fill.
namespace tollgate::bench {

struct ServiceSettings
{
    int seconds = 10;
    int rounds = 2;
    int channels = 8;
    int inFlight = 16;
    qint64 users = 1000;
    int httpConnections = 128;
    int grpcThreads = 0; // tollgated's --grpc-threads; 0: its default
    int abusers = 10;
    int abuserShare = 90; // % of the requests
    qint64 normalUsers = 100'000;
    qint64 fill = 1'000'000;
    int fillBatch = 10; // descriptors per request while filling
    QString fillCacheSize = QStringLiteral("512MB");
    std::vector<int> frozenTimeouts = {20, 50}; // ms: the Redis URL's timeout in the frozen part
    QStringList parts; // grpc, latency, refusals, http, memory, frozen
};

/// What one run cost each process, per decision.
struct ServiceRun
{
    HitLoadFigures load;
    double clientUs = 0, serverUs = 0, redisUs = 0;
    double scriptUs = 0; // Redis µs in EVALSHA per decision (INFO commandstats): the scripts' own work
    double switches = 0; // the server's context switches per decision
    const char* server = "tollgated"; // whose CPU serverUs is

    double rate() const { return load.opsPerSecond(); }
    QString cpuText() const;
};

/// One kind of request with Redis frozen: p50, p99 and max in ms from when it was sent.
struct FrozenFigure
{
    QString what;
    int timeoutMs = 0;
    HitLoadFigures load;
    /// tollgated's own count (tollgated_deadline_lateness_seconds over the load): decisions the
    /// failure policy answered at their deadline, and how many of them went by it + 1, + 2 and
    /// + 5 ms; -1 when /metrics did not answer.
    qint64 atDeadline = -1;
    qint64 byOneMs = 0;
    qint64 byTwoMs = 0;
    qint64 byFiveMs = 0; // how far the tail reaches
};

/// tollgated's configuration for the runs: bench (nothing refused: the policy of `tollgatectl
/// bench hit`), abuse (100 a minute), fill (1 an hour).
extern const char kServiceConfig[];

class ServiceBench
{
public:
    ServiceBench(ServiceSettings settings, DemoServer& redis, Client& admin, QString configPath);

    /// Every part asked for, then the table. 0, or 3 when something could not run.
    int run();

private:
    bool wants(const char* part) const { return m_s.parts.contains(QLatin1String(part)); }
    bool startDaemon(const QStringList& extraArgs = {}, const QString& urlQuery = {});
    bool startFloor();
    ServiceRun measure(const std::function<HitLoadFigures()>& load, TollgatedProcess& server);
    ServiceRun measure(const std::function<HitLoadFigures()>& load) { return measure(load, m_daemon); }
    ServiceRun grpc(const RequestMaker& make, double rate = 0, qint64 requests = 0,
                    int seconds = 0);
    ServiceRun grpcAt(TollgatedProcess& server, const RequestMaker& make, double rate,
                      qint64 requests, int seconds);
    ServiceRun libraryHits();
    RequestMaker benchUsers();
    RequestMaker abuseMix();

    void partGrpc();
    void partLatency();
    void partRefusals();
    void partHttp();
    void partMemory();
    void partFrozen(); // bench/service/FrozenRedis.cpp
    void frozenRound(int timeoutMs);
    void printTable() const; // bench/service/ServiceTable.cpp
    void printFrozenTable() const;

    ServiceSettings m_s;
    DemoServer& m_redis;
    Client& m_admin;
    QString m_config;
    TollgatedProcess m_daemon;
    TollgatedProcess m_floorServer; // bench/service/GrpcFloor, started once
    std::vector<QByteArray> m_users;
    std::minstd_rand m_random{42};
    bool m_failed = false;

    // The figures of the table; -1 or empty: not measured.
    ServiceRun m_grpcBest, m_libraryBest, m_floor, m_floorPaced, m_paced, m_cached, m_floorMix,
        m_uncached, m_http;
    std::vector<double> m_floorRatios; // tollgated / the floor, round by round
    double m_pacedTarget = 0;
    double m_tripsCached = -1, m_tripsUncached = -1;
    qint64 m_rssBeforeKb = -1, m_rssAfterKb = -1;
    bool m_httpFailed = false;
    std::map<QByteArray, double> m_httpThreads; // tollgated's CPU seconds by thread, HTTP run
    double m_entries = -1, m_cacheBytes = -1, m_fillSeconds = 0;
    std::vector<FrozenFigure> m_frozen;
};

} // namespace tollgate::bench
