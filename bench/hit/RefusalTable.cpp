#include "bench/hit/RefusalTable.h"

#include "bench/hit/AlgorithmTable.h"
#include "bench/hit/ServerFigures.h"
#include "core/limiter/HitLoad.h"

#include <QDateTime>
#include <array>

namespace tollgate::bench {

namespace {

enum Scenario { Allowed, Window, Banned, Shadow, ScenarioCount };

const char* const kScenarioNames[ScenarioCount] = {"allowed", "window", "ban", "shadow"};

// The policy of a scenario: allowed and banned pass every hit (bench_hit's own policy); the
// window and the shadow policy allow one hit per hour, so past each user's first hit every hit
// is refused (or, in shadow, would be).
Policy scenarioPolicy(Algorithm algorithm, Scenario scenario)
{
    Policy policy = benchPolicy("refuse-" + algorithmCode(algorithm) + '-' +
                                    QByteArray(kScenarioNames[scenario]),
                                algorithm, 3'600'000);
    if (scenario == Window || scenario == Shadow)
        policy.windows = {WindowLimit{1, 3'600'000}};
    policy.shadow = scenario == Shadow;
    return policy;
}

// An action ban of every user for two hours, written as ban.lua writes one (a hash with its
// until_ms, expiring with it).
void banEveryUser(Client& admin, const KeySchema& schema, const Policy& policy, qint64 users)
{
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    for (qint64 i = 0; i < users; ++i) {
        const QByteArray user = QByteArrayLiteral("bench-") + QByteArray::number(i);
        const QByteArray key = schema.actionBanKey(user, policy.action);
        command(admin, {"HSET", key, "reason", "bench", "actor", "bench", "created_ms",
                        QByteArray::number(nowMs), "until_ms", QByteArray::number(nowMs + 7'200'000),
                        "scope", "action", "action", policy.action, "source", "manual"});
        command(admin, {"PEXPIREAT", key, QByteArray::number(nowMs + 7'200'000)});
    }
}

} // namespace

void runRefusalTable(Client& admin, const ConnectionOptions& options, const KeySchema& schema,
                     const RefusalTableOptions& table)
{
    printLine("\nrefusals against an allowed hit, server usec_per_call (8x16, %lld random users, "
              "best of %d rounds; ratio to allowed):\n  %-15s %9s %16s %16s %16s\n",
              table.users, table.rounds, "algorithm", "allowed", "window", "ban", "shadow");
    const Algorithm algorithms[] = {Algorithm::FixedWindow, Algorithm::TokenBucket,
                                    Algorithm::SlidingWindow, Algorithm::SlidingLog};
    std::array<std::array<double, ScenarioCount>, 4> best{};
    std::array<std::array<double, ScenarioCount>, 4> refusedShare{};
    for (size_t a = 0; a < 4; ++a)
        banEveryUser(admin, schema, scenarioPolicy(algorithms[a], Banned), table.users);
    const HitLoadOptions load{8, 16, table.seconds, table.users, false};
    for (int round = 0; round < table.rounds; ++round) {
        for (size_t a = 0; a < 4; ++a) {
            for (int s = 0; s < ScenarioCount; ++s) {
                const Policy policy = scenarioPolicy(algorithms[a], Scenario(s));
                command(admin, {"CONFIG", "RESETSTAT"});
                const HitLoadFigures figures = runHitLoad(options, schema, policy, load);
                if (figures.errors > 0)
                    std::fprintf(stderr, "refusals, %s errors: %lld (%s)\n", kScenarioNames[s],
                                 figures.errors, qPrintable(figures.firstError->toString()));
                const double usec = serverFigures(admin).evalshaUsecPerCall;
                if (round == 0 || usec < best[a][s]) {
                    best[a][s] = usec;
                    refusedShare[a][s] =
                        figures.hits > 0 ? double(figures.denied) / double(figures.hits) : 0;
                }
            }
        }
    }
    for (size_t a = 0; a < 4; ++a) {
        const double allowed = best[a][Allowed];
        printLine("  %-15s %6.1f us", algorithmName(algorithms[a]).constData(), allowed);
        for (int s = Window; s < ScenarioCount; ++s)
            printLine(" %6.1f us (%4.2f)", best[a][s], allowed > 0 ? best[a][s] / allowed : 0.0);
        // a shadow hit is allowed: its share of refusals is not counted as denied
        printLine("   [refused: window %.0f%%, ban %.0f%%]\n", 100 * refusedShare[a][Window],
                  100 * refusedShare[a][Banned]);
    }
}

} // namespace tollgate::bench
