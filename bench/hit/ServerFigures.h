#pragma once

#include "tollgate/Client.h"

#include <QStringList>
#include <cstdio>

// What bench_hit reads off the server and off redis-benchmark.
namespace tollgate::bench {

struct Concurrency
{
    int connections;
    int pipeline;
};

/// Runs a command that must succeed; exits with status 3 after printing why it did not.
tollgate::Reply command(tollgate::Client& client, const tollgate::Command& args);

/// INFO commandstats, summed: EVALSHA's calls and usec_per_call, and every command's usec.
struct ServerFigures
{
    double evalshaUsecPerCall = 0;
    double evalshaCalls = 0;
    double totalUsec = 0; // every command
};
ServerFigures serverFigures(tollgate::Client& client);

struct BenchmarkRun
{
    double opsPerSecond = 0;
    double cpuMicrosPerOp = 0;
};

/// redis-benchmark against 127.0.0.1:port, `requests` times `args` (options may precede the
/// command, e.g. -r 1000), at the given concurrency. Client CPU is the reaped child's, its
/// start-up included.
BenchmarkRun redisBenchmark(quint16 port, Concurrency c, qint64 requests, const QStringList& args);

/// printf, flushed at once: a long bench shows each line as it is measured.
template <typename... Values> void printLine(const char* format, Values... values)
{
    std::printf(format, values...);
    std::fflush(stdout);
}

} // namespace tollgate::bench
