#pragma once

#include "tollgate/ConnectionOptions.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"
#include "tollgate/Result.h"

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

namespace tollgate {

/// A closed-loop hit load for benchmarks (`tollgatectl bench hit`, bench/hit.cpp): each
/// connection keeps `pipeline` hits in flight through the Limiter, the same path applications
/// use, for a fixed time.
struct HitLoadOptions
{
    int connections = 8;
    int pipeline = 16;
    std::chrono::milliseconds duration{5000};
    qint64 users = 1000; // random ids "bench-<n>" drawn from this many; 1 = always "bench-0"
    bool recordStats = false;
};

struct HitLoadFigures
{
    qint64 hits = 0; // answered by Redis
    qint64 denied = 0;
    qint64 errors = 0;
    std::optional<Error> firstError;
    double seconds = 0;              // from the first hit sent to the last answer
    double cpuSeconds = 0;           // this process, user + system, over the same span
    std::vector<double> latenciesMs; // sorted

    double opsPerSecond() const { return seconds > 0 ? double(hits) / seconds : 0; }
    double cpuMicrosPerHit() const { return hits > 0 ? cpuSeconds * 1e6 / double(hits) : 0; }
    /// p in 0..1
    double percentileMs(double p) const;
};

/// Opens the connections (waiting until each answers), runs the load, closes them. Blocks the
/// calling thread, which must not be a GUI thread; the scripts should be loaded beforehand.
HitLoadFigures runHitLoad(const ConnectionOptions& options, const KeySchema& schema,
                          const Policy& policy, const HitLoadOptions& load);

class Client;

/// One request of a load for `user`; `done` gets whether it was denied, or the error. Called
/// and answered on its connection's worker thread.
using LoadRequest =
    std::function<void(const QByteArray& user, std::function<void(Result<bool>)> done)>;
/// Makes the request function of one connection (e.g. a Limiter bound to that client).
using LoadRequestFactory = std::function<LoadRequest(Client* client)>;

/// The same closed loop with any request: what runHitLoad runs with the Limiter, and what
/// bench/hit.cpp runs with its minimal reference scripts, under the same load and users.
HitLoadFigures runLoad(const ConnectionOptions& options, const HitLoadOptions& load,
                       const LoadRequestFactory& makeRequest);

/// CPU time (user + system) so far, in seconds: getrusage's RUSAGE_SELF (this process),
/// RUSAGE_THREAD (this thread) or RUSAGE_CHILDREN (reaped children).
double cpuSeconds(int who);

} // namespace tollgate
