#include "core/limiter/HitLoad.h"

#include "core/limiter/HitStats.h"
#include "tollgate/Limiter.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

namespace tollgate {

namespace {

using Clock = std::chrono::steady_clock;

// One connection. Its figures are touched only by its hit callbacks, which all run on its
// client's worker thread; the loading thread reads them once the last hit has answered.
struct Worker
{
    std::unique_ptr<Client> client;
    LoadRequest request; // declared after the client: released before it
    std::minstd_rand random;
    std::vector<double> latenciesMs;
    qint64 hits = 0, denied = 0, errors = 0;
    std::optional<Error> firstError;
    bool broken = false;
};

struct Shared
{
    std::vector<QByteArray> users;
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable drained;
    int inFlight = 0;
};

void issue(Worker* worker, Shared* shared)
{
    const QByteArray& user = shared->users[worker->random() % shared->users.size()];
    const auto start = Clock::now();
    worker->request(user, [worker, shared, start](Result<bool> denied) {
        const std::chrono::duration<double, std::milli> took = Clock::now() - start;
        if (denied) {
            ++worker->hits;
            worker->latenciesMs.push_back(took.count());
            worker->denied += *denied ? 1 : 0;
        } else {
            ++worker->errors;
            if (!worker->firstError)
                worker->firstError = denied.error();
            // A dead connection would fail every hit at once: stop it.
            worker->broken = true;
        }
        if (!shared->stop.load(std::memory_order_relaxed) && !worker->broken) {
            issue(worker, shared);
            return;
        }
        std::lock_guard lock(shared->mutex);
        if (--shared->inFlight == 0)
            shared->drained.notify_all();
    });
}

} // namespace

double HitLoadFigures::percentileMs(double p) const
{
    if (latenciesMs.empty())
        return 0;
    const auto index = static_cast<size_t>(p * double(latenciesMs.size() - 1) + 0.5);
    return latenciesMs[std::min(index, latenciesMs.size() - 1)];
}

double cpuSeconds(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    const auto seconds = [](const timeval& t) {
        return double(t.tv_sec) + double(t.tv_usec) / 1e6;
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

HitLoadFigures runHitLoad(const ConnectionOptions& options, const KeySchema& schema,
                          const Policy& policy, const HitLoadOptions& load)
{
    return runLoad(options, load, [&](Client* client) -> LoadRequest {
        auto limiter = std::make_shared<Limiter>(client, schema);
        limiter->setRecordStats(load.recordStats);
        return [limiter, policy](const QByteArray& user, std::function<void(Result<bool>)> done) {
            limiter->hit(policy, user, 0, nullptr, [done = std::move(done)](Result<HitResult> hit) {
                done(hit ? Result<bool>(!hit->allowed) : Result<bool>(hit.error()));
            });
        };
    });
}

HitLoadFigures runLoad(const ConnectionOptions& options, const HitLoadOptions& load,
                       const LoadRequestFactory& makeRequest)
{
    HitLoadFigures figures;
    Shared shared;
    for (qint64 i = 0; i < std::max<qint64>(1, load.users); ++i)
        shared.users.push_back(QByteArrayLiteral("bench-") + QByteArray::number(i));

    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < load.connections; ++i) {
        auto worker = std::make_unique<Worker>();
        worker->client = std::make_unique<Client>(options);
        worker->client->open();
        worker->request = makeRequest(worker->client.get());
        worker->random.seed(unsigned(i + 1));
        worker->latenciesMs.reserve(size_t(load.duration.count()) * 50);
        // Connected before the clock starts: the handshake is not part of the figures.
        auto ping = worker->client->executeSync({QByteArrayLiteral("PING")});
        if (!ping && ping.error().kind != ErrorKind::NoPerm) {
            figures.firstError = ping.error();
            figures.errors = 1;
            return figures;
        }
        workers.push_back(std::move(worker));
    }

    const double cpuBefore = cpuSeconds(RUSAGE_SELF);
    const auto started = Clock::now();
    shared.inFlight = load.connections * load.pipeline;
    for (auto& worker : workers)
        for (int i = 0; i < load.pipeline; ++i)
            issue(worker.get(), &shared);
    std::this_thread::sleep_for(load.duration);
    shared.stop = true;
    {
        std::unique_lock lock(shared.mutex);
        shared.drained.wait(lock, [&] { return shared.inFlight == 0; });
    }
    figures.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    figures.cpuSeconds = cpuSeconds(RUSAGE_SELF) - cpuBefore;

    for (const auto& worker : workers) {
        figures.hits += worker->hits;
        figures.denied += worker->denied;
        figures.errors += worker->errors;
        if (!figures.firstError)
            figures.firstError = worker->firstError;
        figures.latenciesMs.insert(figures.latenciesMs.end(), worker->latenciesMs.begin(),
                                   worker->latenciesMs.end());
    }
    std::sort(figures.latenciesMs.begin(), figures.latenciesMs.end());
    return figures;
}

} // namespace tollgate
