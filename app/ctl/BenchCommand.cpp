// bench hit: N connections, each keeping `pipeline` hits in flight, for a fixed time
// (core/limiter/HitLoad, shared with bench/hit.cpp). Prints ops/s, latency and the client's own
// CPU time per hit.
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"
#include "core/limiter/HitLoad.h"
#include "core/scripts/ScriptRunner.h"
#include "tollgate/PolicyStore.h"

#include <chrono>

namespace tollgate::ctl {

namespace {

Result<Policy> benchPolicy(Client* client, const Cli& cli, const QByteArray& action, bool create)
{
    const PolicyStore store(client, cli.schema());
    auto policy = waitFor<Policy>([&](Callback<Policy> done) { store.get(action, nullptr, done); });
    if (policy || policy.error().kind != ErrorKind::NotFound || !create)
        return policy;
    Policy fresh;
    fresh.action = action;
    fresh.windows = {{Policy::kMaxLimit, 3'600'000}};
    auto saved = waitFor<qint64>(
        [&](Callback<qint64> done) { store.save(fresh, cli.actor, nullptr, done); });
    if (!saved)
        return saved.error();
    fresh.revision = *saved;
    return fresh;
}

class BenchHitCommand final : public Command
{
public:
    BenchHitCommand() : Command(0, 0)
    {
        auto option = [](const char* name, const char* description) {
            return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(description),
                                      QStringLiteral("n"));
        };
        parser.addOptions({
            option("connections", "Connections (default 8)."),
            option("pipeline", "Hits in flight per connection (default 16)."),
            option("seconds", "How long (default 5)."),
            option("users", "Random user ids drawn from this many (default 1000)."),
            QCommandLineOption(QStringLiteral("stats"),
                               QStringLiteral("Record console statistics too (HitStats).")),
            QCommandLineOption(
                QStringLiteral("action"),
                QStringLiteral("Policy to hit (default 'bench', created if missing)."),
                QStringLiteral("action")),
        });
    }

private:
    Status check() override
    {
        struct Limit
        {
            const char* name;
            qint64 fallback;
            qint64 max;
            qint64* out;
        };
        for (const Limit& l :
             {Limit{"connections", 8, 256, &m_connections},
              Limit{"pipeline", 16, 10'000, &m_pipeline}, Limit{"seconds", 5, 3600, &m_seconds},
              Limit{"users", 1000, 1'000'000'000, &m_users}}) {
            auto value = integerOption(parser, QString::fromLatin1(l.name), l.fallback);
            if (value && (*value < 1 || *value > l.max))
                return invalidInput(QStringLiteral("--%1 must be between 1 and %2")
                                        .arg(QString::fromLatin1(l.name))
                                        .arg(l.max));
            if (!value)
                return value.error();
            *l.out = *value;
        }
        return Unit{};
    }

    Result<int> execute() override
    {
        const bool customAction = isSet("action");
        const QByteArray action =
            customAction ? idFromText(value("action")) : QByteArrayLiteral("bench");
        auto policy = benchPolicy(client(), cli(), action, !customAction);
        if (!policy)
            return policy.error();
        // Load the scripts up front so no NOSCRIPT round trip lands in the measurement.
        auto warmed =
            waitFor<Unit>([&](Callback<Unit> done) { loadAllScripts(client(), nullptr, done); });
        if (!warmed)
            return warmed.error();

        HitLoadOptions load;
        load.connections = int(m_connections);
        load.pipeline = int(m_pipeline);
        load.duration = std::chrono::seconds(m_seconds);
        load.users = m_users;
        load.recordStats = isSet("stats");
        const HitLoadFigures figures = runHitLoad(client()->options(), schema(), *policy, load);
        if (figures.hits == 0 && figures.firstError)
            return *figures.firstError;
        if (json())
            printJson(figuresJson(figures, action));
        else
            printText(figures);
        if (figures.firstError)
            fail(*figures.firstError);
        return figures.errors > 0 ? ExitFailure : ExitOk;
    }

    QJsonObject figuresJson(const HitLoadFigures& figures, const QByteArray& action) const
    {
        return QJsonObject{{QStringLiteral("action"), text(action)},
                           {QStringLiteral("connections"), m_connections},
                           {QStringLiteral("pipeline"), m_pipeline},
                           {QStringLiteral("seconds"), figures.seconds},
                           {QStringLiteral("ops"), figures.hits},
                           {QStringLiteral("denied"), figures.denied},
                           {QStringLiteral("errors"), figures.errors},
                           {QStringLiteral("ops_per_sec"), figures.opsPerSecond()},
                           {QStringLiteral("client_cpu_us_per_hit"), figures.cpuMicrosPerHit()},
                           {QStringLiteral("p50_ms"), figures.percentileMs(0.50)},
                           {QStringLiteral("p99_ms"), figures.percentileMs(0.99)},
                           {QStringLiteral("max_ms"), figures.percentileMs(1.0)}};
    }

    void printText(const HitLoadFigures& figures) const
    {
        printLine(QStringLiteral("%1 hits in %2 s over %3 connections x %4 in flight: %5 ops/s")
                      .arg(figures.hits)
                      .arg(figures.seconds, 0, 'f', 2)
                      .arg(m_connections)
                      .arg(m_pipeline)
                      .arg(figures.opsPerSecond(), 0, 'f', 0));
        printLine(QStringLiteral("latency ms: p50 %1  p99 %2  max %3; client CPU %4 us/hit")
                      .arg(figures.percentileMs(0.50), 0, 'f', 2)
                      .arg(figures.percentileMs(0.99), 0, 'f', 2)
                      .arg(figures.percentileMs(1.0), 0, 'f', 2)
                      .arg(figures.cpuMicrosPerHit(), 0, 'f', 2));
        if (figures.denied > 0 || figures.errors > 0)
            printLine(
                QStringLiteral("denied %1, errors %2").arg(figures.denied).arg(figures.errors));
    }

    qint64 m_connections = 0;
    qint64 m_pipeline = 0;
    qint64 m_seconds = 0;
    qint64 m_users = 0;
};

} // namespace

int benchCommand(Cli& cli, const QStringList& args)
{
    if (args.value(1) != QLatin1String("hit"))
        return usage(QStringLiteral("bench needs a target: 'bench hit'"));
    return BenchHitCommand().run(cli,
                                 QStringList{args.value(0) + QStringLiteral(" hit")} + args.mid(2));
}

} // namespace tollgate::ctl
