// bench hit: N connections, each keeping `pipeline` hits in flight, for a fixed time.
// Everything is asynchronous: each hit's callback (on its connection's worker thread) records
// the latency and issues the next one; the main thread only runs the clock.
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "core/limits/IdText.h"

#include "core/limits/Limiter.h"
#include "core/limits/PolicyStore.h"
#include "core/scripts/ScriptRunner.h"

#include <QCoreApplication>
#include <QRandomGenerator>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>

namespace tollgate::ctl {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchShared
{
    Policy policy;
    KeySchema schema;
    qint64 users = 1000;
    std::atomic<bool> stop{false};
};

// One connection. Its counters are only touched on its client's worker thread while running;
// the main thread reads them after inFlight has dropped to zero.
struct BenchWorker
{
    std::unique_ptr<Client> client;
    std::vector<double> latenciesMs;
    std::atomic<int> inFlight{0};
    std::atomic<bool> broken{false};
    qint64 denied = 0;
    qint64 errors = 0;
    std::optional<Error> firstError;
};

void issue(BenchWorker* worker, const std::shared_ptr<BenchShared>& shared)
{
    if (shared->stop.load() || worker->broken.load())
        return;
    ++worker->inFlight;
    const QByteArray user =
        QByteArray::number(QRandomGenerator::global()->bounded(shared->users)) ;
    const auto start = Clock::now();
    Limiter(worker->client.get(), shared->schema)
        .hit(shared->policy, QByteArrayLiteral("bench-") + user, 0, nullptr,
             [worker, shared, start](Result<HitResult> hit) {
                 const std::chrono::duration<double, std::milli> took = Clock::now() - start;
                 if (hit) {
                     worker->latenciesMs.push_back(took.count());
                     if (!hit->allowed)
                         ++worker->denied;
                 } else {
                     ++worker->errors;
                     if (!worker->firstError)
                         worker->firstError = hit.error();
                     // A dead connection would fail every hit at once: stop this one.
                     worker->broken = true;
                 }
                 issue(worker, shared);
                 --worker->inFlight;
             });
}

Result<Policy> benchPolicy(Client* client, const Cli& cli, const QByteArray& action, bool create)
{
    const PolicyStore store(client, cli.schema());
    auto policy = waitFor<Policy>([&](Callback<Policy> done) { store.get(action, nullptr, done); });
    if (policy || policy.error().kind != ErrorKind::NotFound || !create)
        return policy;
    Policy fresh;
    fresh.action = action;
    fresh.windows = {{Policy::kMaxLimit, 3'600'000}};
    auto saved = waitFor<qint64>([&](Callback<qint64> done) { store.save(fresh, cli.actor, nullptr, done); });
    if (!saved)
        return saved.error();
    fresh.revision = *saved;
    return fresh;
}

double percentile(const std::vector<double>& sorted, double p)
{
    if (sorted.empty())
        return 0;
    const auto index = static_cast<size_t>(p * double(sorted.size() - 1) + 0.5);
    return sorted[std::min(index, sorted.size() - 1)];
}

} // namespace

int benchCommand(Cli& cli, const QStringList& args)
{
    if (args.value(1) != QLatin1String("hit"))
        return usage(QStringLiteral("bench needs a target: 'bench hit'"));
    QCommandLineParser parser;
    auto option = [](const char* name, const char* description) {
        return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(description),
                                  QStringLiteral("n"));
    };
    parser.addOptions({
        option("connections", "Connections (default 8)."),
        option("pipeline", "Hits in flight per connection (default 16)."),
        option("seconds", "How long (default 5)."),
        option("users", "Random user ids drawn from this many (default 1000)."),
        QCommandLineOption(QStringLiteral("action"),
                           QStringLiteral("Policy to hit (default 'bench', created if missing)."),
                           QStringLiteral("action")),
    });
    if (auto exit = parseArguments(parser, QStringList{args.value(0) + QStringLiteral(" hit")} + args.mid(2), 0, 0))
        return *exit;
    struct Limit { const char* name; qint64 fallback; qint64 max; qint64* out; };
    qint64 connections = 0, pipeline = 0, seconds = 0, users = 0;
    for (const Limit& l : {Limit{"connections", 8, 256, &connections}, Limit{"pipeline", 16, 10'000, &pipeline},
                           Limit{"seconds", 5, 3600, &seconds}, Limit{"users", 1000, 1'000'000'000, &users}}) {
        auto value = integerOption(parser, QString::fromLatin1(l.name), l.fallback);
        if (value && (*value < 1 || *value > l.max))
            value = Error{ErrorKind::InvalidInput,
                          QStringLiteral("--%1 must be between 1 and %2").arg(QString::fromLatin1(l.name)).arg(l.max)};
        if (!value)
            return fail(value.error());
        *l.out = *value;
    }
    const bool customAction = parser.isSet(QStringLiteral("action"));
    const QByteArray action = customAction ? idFromText(parser.value(QStringLiteral("action")))
                                           : QByteArrayLiteral("bench");

    Client* first = cli.client();
    if (!first)
        return ExitUsage;
    auto shared = std::make_shared<BenchShared>();
    shared->schema = cli.schema();
    shared->users = users;
    auto policy = benchPolicy(first, cli, action, !customAction);
    if (!policy)
        return fail(policy.error());
    shared->policy = *policy;
    // Load the scripts up front so no NOSCRIPT round trip lands in the measurement.
    auto warmed = waitFor<Unit>([&](Callback<Unit> done) { loadAllScripts(first, nullptr, done); });
    if (!warmed)
        return fail(warmed.error());

    std::vector<std::unique_ptr<BenchWorker>> workers;
    for (qint64 i = 0; i < connections; ++i) {
        auto worker = std::make_unique<BenchWorker>();
        worker->client = std::make_unique<Client>(first->options());
        worker->client->open();
        worker->latenciesMs.reserve(size_t(seconds) * 20'000);
        workers.push_back(std::move(worker));
    }

    const auto started = Clock::now();
    for (auto& worker : workers)
        for (qint64 i = 0; i < pipeline; ++i)
            issue(worker.get(), shared);

    QTimer::singleShot(std::chrono::seconds(seconds), Qt::PreciseTimer, [shared] { shared->stop = true; });
    QTimer drain;
    QObject::connect(&drain, &QTimer::timeout, [&] {
        const bool allBroken = std::all_of(workers.begin(), workers.end(),
                                           [](const auto& w) { return w->broken.load(); });
        if (allBroken)
            shared->stop = true;
        if (!shared->stop)
            return;
        for (const auto& worker : workers)
            if (worker->inFlight.load() > 0)
                return;
        QCoreApplication::quit();
    });
    drain.start(10);
    QCoreApplication::exec();
    const std::chrono::duration<double> elapsed = Clock::now() - started;

    std::vector<double> latencies;
    qint64 denied = 0, errors = 0;
    std::optional<Error> firstError;
    for (const auto& worker : workers) {
        latencies.insert(latencies.end(), worker->latenciesMs.begin(), worker->latenciesMs.end());
        denied += worker->denied;
        errors += worker->errors;
        if (!firstError)
            firstError = worker->firstError;
    }
    if (latencies.empty() && firstError)
        return fail(*firstError);
    std::sort(latencies.begin(), latencies.end());
    const double opsPerSec = double(latencies.size()) / elapsed.count();
    const double p50 = percentile(latencies, 0.50), p99 = percentile(latencies, 0.99);
    const double max = latencies.empty() ? 0 : latencies.back();
    if (cli.json) {
        printJson(QJsonObject{{QStringLiteral("action"), text(action)},
                              {QStringLiteral("connections"), connections},
                              {QStringLiteral("pipeline"), pipeline},
                              {QStringLiteral("seconds"), elapsed.count()},
                              {QStringLiteral("ops"), qint64(latencies.size())},
                              {QStringLiteral("denied"), denied},
                              {QStringLiteral("errors"), errors},
                              {QStringLiteral("ops_per_sec"), opsPerSec},
                              {QStringLiteral("p50_ms"), p50},
                              {QStringLiteral("p99_ms"), p99},
                              {QStringLiteral("max_ms"), max}});
    } else {
        printLine(QStringLiteral("%1 hits in %2 s over %3 connections x %4 in flight: %5 ops/s")
                      .arg(latencies.size())
                      .arg(elapsed.count(), 0, 'f', 2)
                      .arg(connections)
                      .arg(pipeline)
                      .arg(opsPerSec, 0, 'f', 0));
        printLine(QStringLiteral("latency ms: p50 %1  p99 %2  max %3")
                      .arg(p50, 0, 'f', 2)
                      .arg(p99, 0, 'f', 2)
                      .arg(max, 0, 'f', 2));
        if (denied > 0 || errors > 0)
            printLine(QStringLiteral("denied %1, errors %2").arg(denied).arg(errors));
    }
    if (firstError)
        fail(*firstError);
    return errors > 0 ? ExitFailure : ExitOk;
}

} // namespace tollgate::ctl
