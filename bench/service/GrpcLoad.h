#pragma once

#include "core/limiter/HitLoad.h"

#include <QByteArray>
#include <QString>
#include <chrono>
#include <functional>

namespace envoy::service::ratelimit::v3 {
class RateLimitRequest;
}

// bench_service's gRPC load generator: Envoy's ShouldRateLimit on the asynchronous API (one
// grpc::CompletionQueue, polled by the calling thread), over channels of their own (one TCP
// connection each: a local subchannel pool and a distinct channel argument).
namespace tollgate::bench {

/// Fills request number `sequence` (its domain and descriptors).
using RequestMaker =
    std::function<void(quint64 sequence, envoy::service::ratelimit::v3::RateLimitRequest*)>;

struct GrpcLoadOptions
{
    QString target; // "127.0.0.1:<port>"
    int channels = 8;
    int inFlight = 16; // per channel, closed loop
    std::chrono::milliseconds duration{5000};
    qint64 requests = 0; // > 0: stop after this many instead of after `duration`
    /// > 0: open loop, this many requests a second spread over the channels whatever the
    /// answers; latency counts from when each request was due, so a stall is not hidden.
    double ratePerSecond = 0;
};

/// Runs the load on the calling thread. HitLoadFigures: hits = answered requests, denied =
/// OVER_LIMIT answers, latencies in ms (sorted), cpuSeconds = this process over the run.
HitLoadFigures runGrpcLoad(const GrpcLoadOptions& options, const RequestMaker& make);

/// One request: `domain`, one descriptor per value, each {key: value}.
void fillRequest(envoy::service::ratelimit::v3::RateLimitRequest* request, const QByteArray& domain,
                 const QByteArray& key, const std::vector<QByteArray>& values);

} // namespace tollgate::bench
