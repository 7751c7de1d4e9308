#include "bench/hit/AlgorithmTable.h"

#include "bench/hit/ServerFigures.h"
#include "bench/reference/ReferenceScripts.h"
#include "core/limiter/HitLoad.h"

#include <QStringList>

namespace tollgate::bench {

namespace {

// Members per sliding log, averaged over the first (up to) 200 users, read right after a run:
// the figure is quoted with the length it was measured at (hits per second per user times the
// window), although the length moves it little.
double meanLogLength(Client& admin, const KeySchema& schema, const Policy& policy, qint64 users)
{
    const qint64 sampled = std::min<qint64>(users, 200);
    qint64 members = 0;
    for (qint64 i = 0; i < sampled; ++i) {
        const QByteArray user = QByteArrayLiteral("bench-") + QByteArray::number(i);
        const QByteArray key =
            schema.stateKey(user, policy.action, policy.algorithm, policy.windows.front().windowMs);
        members += command(admin, {"ZCARD", key}).toInteger().value_or(0);
    }
    return double(members) / double(sampled);
}

struct AlgorithmRuns
{
    Policy policy;
    HitLoadFigures best;
    ServerFigures bestServer;
    QStringList all; // every round's usec_per_call
    double logLength = 0;
    // The minimal script doing the same job (bench/reference), same load and users.
    QByteArray referenceSha;
    HitLoadFigures bestReference;
    ServerFigures bestReferenceServer;
};

void reportErrors(const char* who, const HitLoadFigures& figures)
{
    if (figures.errors > 0)
        std::fprintf(stderr, "%s errors: %lld (%s)\n", who, figures.errors,
                     qPrintable(figures.firstError->toString()));
}

// Keeps the round with the least server time per call: on a shared machine a round can only
// lose time to other work, never gain it. True when `tried` was kept.
bool keepBest(int round, HitLoadFigures tried, const ServerFigures& server, HitLoadFigures& best,
              ServerFigures& bestServer)
{
    if (round > 0 && server.evalshaUsecPerCall >= bestServer.evalshaUsecPerCall)
        return false;
    best = std::move(tried);
    bestServer = server;
    return true;
}

void printTollgateRows(const std::vector<AlgorithmRuns>& runs, qint64 logWindowMs)
{
    for (const AlgorithmRuns& r : runs) {
        const QByteArray logNote = r.policy.algorithm == Algorithm::SlidingLog
                                       ? QStringLiteral("  [%1 ms window: %2 members per log]")
                                             .arg(logWindowMs)
                                             .arg(r.logLength, 0, 'f', 1)
                                             .toLatin1()
                                       : QByteArray();
        printLine("  %-15s %6.1f us/call  %8.0f hits/s  client CPU %.2f us/hit  (rounds: %s)%s%s\n",
                  algorithmName(r.policy.algorithm).constData(), r.bestServer.evalshaUsecPerCall,
                  r.best.opsPerSecond(), r.best.cpuMicrosPerHit(),
                  qPrintable(r.all.join(QStringLiteral(" / "))),
                  r.best.denied > 0 ? "  (some denied)" : "", logNote.constData());
    }
}

void printReferenceTable(const std::vector<AlgorithmRuns>& runs)
{
    printLine("\nagainst the minimal script doing the same job (bench/reference), same load and "
              "users:\n  %-15s %10s %10s %7s   goal <= 1.5 (never over 2)\n",
              "algorithm", "tollgate", "reference", "ratio");
    for (const AlgorithmRuns& r : runs) {
        const double tollgate = r.bestServer.evalshaUsecPerCall;
        const double reference = r.bestReferenceServer.evalshaUsecPerCall;
        printLine("  %-15s %7.1f us %7.1f us %7.2f\n",
                  algorithmName(r.policy.algorithm).constData(), tollgate, reference,
                  reference > 0 ? tollgate / reference : 0.0);
    }
}

// End to end: Tollgate's fixed-window hits per second through the Limiter against the minimal
// fixed window sent by redis-benchmark (a C client with no work per reply), same users.
void printEndToEnd(quint16 port, const AlgorithmRuns& fixed, qint64 users)
{
    const WindowLimit& window = fixed.policy.windows.front();
    const QStringList call{
        QStringLiteral("-r"),          QString::number(users),
        QStringLiteral("EVALSHA"),     QString::fromLatin1(fixed.referenceSha),
        QStringLiteral("1"),           QStringLiteral("ref:{bench-__rand_int__}:fw"),
        QString::number(window.limit), QString::number(window.windowMs)};
    const BenchmarkRun minimal =
        redisBenchmark(port, {8, 16}, std::max<qint64>(fixed.best.hits, 100'000), call);
    const double tollgate = fixed.best.opsPerSecond();
    printLine("\nend to end at 8x16, %lld random users: Tollgate's fixed window %.0f hits/s = "
              "%.2f of the minimal fixed window under redis-benchmark (%.0f/s; goal >= 0.7)\n",
              users, tollgate, minimal.opsPerSecond > 0 ? tollgate / minimal.opsPerSecond : 0.0,
              minimal.opsPerSecond);
}

} // namespace

Policy benchPolicy(const QByteArray& action, Algorithm algorithm, qint64 logWindowMs)
{
    Policy policy;
    policy.action = action;
    policy.algorithm = algorithm;
    // Huge limits: every hit takes the common allowed path. The sliding log keeps one member
    // per hit, so its window is short instead.
    policy.windows = {algorithm == Algorithm::SlidingLog
                          ? WindowLimit{Policy::kMaxSlidingLogLimit, logWindowMs}
                          : WindowLimit{Policy::kMaxLimit, 3'600'000}};
    return policy;
}

bool runAlgorithmTable(Client& admin, const ConnectionOptions& options, const KeySchema& schema,
                       const AlgorithmTableOptions& table)
{
    printLine("\nserver usec_per_call per algorithm (Tollgate at 8x16, %lld random users, best of "
              "%d rounds):\n",
              table.users, table.rounds);
    std::vector<AlgorithmRuns> runs;
    for (const Algorithm algorithm : {Algorithm::FixedWindow, Algorithm::TokenBucket,
                                      Algorithm::SlidingWindow, Algorithm::SlidingLog}) {
        AlgorithmRuns r;
        r.policy = benchPolicy("bench-" + algorithmCode(algorithm), algorithm, table.logWindowMs);
        r.referenceSha = loadReferenceScript(admin, algorithm);
        if (r.referenceSha.isEmpty())
            return false;
        runs.push_back(std::move(r));
    }
    // The rounds go over the four algorithms in turn, so the best round of each is drawn from
    // different minutes: a slow minute of this machine then costs one round, not one algorithm.
    const HitLoadOptions randomUsers{8, 16, table.seconds, table.users, false};
    for (int round = 0; round < table.rounds; ++round) {
        for (AlgorithmRuns& r : runs) {
            // Tollgate and its reference take turns going first, as the concurrency rows do.
            for (const bool reference : {round % 2 == 1, round % 2 == 0}) {
                command(admin, {"CONFIG", "RESETSTAT"});
                if (reference) {
                    HitLoadFigures m =
                        runReferenceLoad(options, randomUsers, r.referenceSha, r.policy);
                    reportErrors("reference", m);
                    keepBest(round, std::move(m), serverFigures(admin), r.bestReference,
                             r.bestReferenceServer);
                    continue;
                }
                HitLoadFigures t = runHitLoad(options, schema, r.policy, randomUsers);
                reportErrors("tollgate", t);
                const ServerFigures ts = serverFigures(admin);
                r.all << QString::number(ts.evalshaUsecPerCall, 'f', 1);
                if (keepBest(round, std::move(t), ts, r.best, r.bestServer) &&
                    r.policy.algorithm == Algorithm::SlidingLog)
                    r.logLength = meanLogLength(admin, schema, r.policy, table.users);
            }
        }
    }
    printTollgateRows(runs, table.logWindowMs);
    printReferenceTable(runs);
    printEndToEnd(table.port, runs.front(), table.users);
    return true;
}

} // namespace tollgate::bench
