#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

#include <chrono>

// bench_hit's per-algorithm part: Tollgate's server time per hit for each algorithm at 8x16 over
// random users, next to the minimal script doing the same job (bench/reference) under the same
// load and users, and the end-to-end throughput against that minimal fixed window under
// redis-benchmark.
namespace tollgate::bench {

/// A policy every hit of the bench passes: huge limits; the sliding log, which keeps one member
/// per hit, gets a short window instead.
tollgate::Policy benchPolicy(const QByteArray& action, tollgate::Algorithm algorithm,
                             qint64 logWindowMs = 1000);

struct AlgorithmTableOptions
{
    qint64 users = 1000;
    int rounds = 2;
    std::chrono::seconds seconds{3};
    qint64 logWindowMs = 1000;
    quint16 port = 0; // the server's, for redis-benchmark
};

/// Runs and prints the tables; false (after printing why) when a reference script won't load.
bool runAlgorithmTable(tollgate::Client& admin, const tollgate::ConnectionOptions& options,
                       const tollgate::KeySchema& schema, const AlgorithmTableOptions& table);

} // namespace tollgate::bench
