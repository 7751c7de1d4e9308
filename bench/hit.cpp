// The hit path against the physical limit, in one run against one private
// redis-server (app/demo/DemoServer):
//   * Tollgate's hit through the Limiter (the path applications use, core/limiter/HitLoad);
//   * redis-benchmark running the very same EVALSHA (keys and arguments taken from the command
//     the Limiter sends), a policy with a huge limit so every hit takes the common allowed path;
//   * bare INCR with redis-benchmark;
//   * at 1x1, a bare client (bench/floor) sending the same command: the floor of a round trip;
// at 1x1, 8x1, 1x16 and 8x16 (connections x pipeline). Then the server's usec_per_call per
// algorithm (INFO commandstats after CONFIG RESETSTAT; the best of the rounds) next to the
// minimal script doing the same job (bench/reference, bench/hit/AlgorithmTable), what a refused
// hit costs beside an allowed one (bench/hit/RefusalTable), and the cost of statistics
// (HitStats). Plain policies: the Limiter sends hit.lua's short form.
// Client CPU is getrusage: this process for Tollgate, the reaped child for redis-benchmark
// (its start-up included), the calling thread for the bare client.
//
//   bench_hit [--seconds 3] [--rounds 2] [--users 1000] [--log-window 1000] [--fifo]
//
// --fifo (root) runs the server under SCHED_FIFO, as bench/bench_hit_lua.sh --fifo does:
// usec_per_call is wall time inside the command, so on a 2-core machine it also counts the moments
// the client's threads preempt the server in the middle of a call; under FIFO nothing does.
//
// Prints figures; asserts nothing (goals are read from here, never from timed tests).
#include "app/demo/DemoServer.h"
#include "bench/floor/RoundTripFloor.h"
#include "bench/hit/AlgorithmTable.h"
#include "bench/hit/RefusalTable.h"
#include "bench/hit/ServerFigures.h"
#include "core/limiter/HitLoad.h"
#include "core/limiter/PreparedHit.h"
#include "core/scripts/ScriptRunner.h"
#include "tollgate/Blocking.h"
#include "tollgate/Client.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QProcess>
#include <cstdio>

using namespace tollgate;
using bench::command;
using bench::printLine;
using bench::serverFigures;

namespace {

using bench::Concurrency;

const Concurrency kConcurrencies[] = {{1, 1}, {8, 1}, {1, 16}, {8, 16}};

// The arguments of an encoded command (a RESP array of bulk strings), to hand redis-benchmark
// exactly what the Limiter sends.
QStringList decodeArguments(const QByteArray& resp)
{
    QStringList args;
    qsizetype at = resp.indexOf("\r\n") + 2;
    while (at < resp.size()) {
        const qsizetype end = resp.indexOf("\r\n", at);
        const qsizetype length = resp.mid(at + 1, end - at - 1).toLongLong();
        args << QString::fromUtf8(resp.mid(end + 2, length));
        at = end + 2 + length + 2;
    }
    return args;
}

// One round of the bare client at 1x1, plain and with the epoll churn, keeping the best of
// each. The two alternate which goes first, as Tollgate and redis-benchmark do.
void runFloorRound(quint16 port, const QByteArray& encoded, qint64 requests, int round,
                   bench::FloorRun& bestPlain, bench::FloorRun& bestTouched)
{
    for (const bool touch : {round % 2 == 1, round % 2 == 0}) {
        bench::FloorRun& best = touch ? bestTouched : bestPlain;
        const bench::FloorRun tried = bench::runRoundTripFloor(port, encoded, requests, {touch});
        if (!tried.error.isEmpty())
            std::fprintf(stderr, "floor client: %s\n", qPrintable(tried.error));
        if (tried.opsPerSecond > best.opsPerSecond)
            best = tried;
    }
}

// A ratio, or n/a when either side never completed a run.
QByteArray ratio(double part, double whole)
{
    return part > 0 && whole > 0 ? QByteArray::number(part / whole, 'f', 2) : QByteArray("n/a");
}

void printFloor(const bench::FloorRun& plain, const bench::FloorRun& touched, double tollgate,
                double redisBenchmark)
{
    printLine("\n1x1 floor, a bare client with the same command (send, epoll_wait, read; no other "
              "work):\n"
              "  plain                                   %8.0f/s = %s of redis-benchmark; "
              "Tollgate = %s of it; its thread's CPU %.2f us\n"
              "  + epoll_ctl ADD/DEL of a pipe per send  %8.0f/s = %s of redis-benchmark\n",
              plain.opsPerSecond, ratio(plain.opsPerSecond, redisBenchmark).constData(),
              ratio(tollgate, plain.opsPerSecond).constData(), plain.cpuMicrosPerOp,
              touched.opsPerSecond, ratio(touched.opsPerSecond, redisBenchmark).constData());
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("seconds"), QStringLiteral("Seconds per Tollgate run (3)."),
                      QStringLiteral("n"), QStringLiteral("3")});
    parser.addOption(
        {QStringLiteral("rounds"),
         QStringLiteral("Rounds per concurrency (Tollgate and redis-benchmark alternating) and per "
                        "algorithm, best kept (2)."),
         QStringLiteral("n"), QStringLiteral("2")});
    parser.addOption({QStringLiteral("users"),
                      QStringLiteral("Users drawn at random in the per-algorithm runs (1000)."),
                      QStringLiteral("n"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("log-window"),
                      QStringLiteral("The sliding log's window in ms (1000): with the hit rate, "
                                     "it sets the log's length."),
                      QStringLiteral("ms"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("fifo"),
                      QStringLiteral("Run the server under SCHED_FIFO (root): usec_per_call then "
                                     "counts no preemption by the client.")});
    parser.process(app);
    const auto seconds =
        std::chrono::seconds(std::max(1, parser.value(QStringLiteral("seconds")).toInt()));
    const qint64 users = std::max(1, parser.value(QStringLiteral("users")).toInt());
    const int rounds = std::max(1, parser.value(QStringLiteral("rounds")).toInt());
    const qint64 logWindowMs =
        std::max<qint64>(1, parser.value(QStringLiteral("log-window")).toLongLong());

    DemoServer server;
    if (Status started = server.start(); !started) {
        std::fprintf(stderr, "%s\n", qPrintable(started.error().toString()));
        return 3;
    }
    auto options = ConnectionOptions::fromUrl(server.url());
    Client admin(*options);
    admin.open();
    if (parser.isSet(QStringLiteral("fifo"))) {
        const QByteArray info = command(admin, {"INFO", "server"}).toBytes();
        const qsizetype at = info.indexOf("process_id:") + 11;
        const QByteArray pid = info.mid(at, info.indexOf('\r', at) - at);
        if (QProcess::execute(QStringLiteral("chrt"),
                              {QStringLiteral("-f"), QStringLiteral("-p"), QStringLiteral("10"),
                               QString::fromLatin1(pid)}) != 0) {
            std::fprintf(stderr, "chrt -f -p 10 %s failed (root needed)\n", pid.constData());
            return 3;
        }
    }
    const KeySchema schema;
    if (!waitFor<Unit>([&](Callback<Unit> done) { loadAllScripts(&admin, nullptr, done); }))
        return 3;

    const Policy fixed = bench::benchPolicy("bench", Algorithm::FixedWindow);
    // The exact EVALSHA the Limiter sends for the one user of the concurrency table.
    const auto prepared = PreparedHit::prepare(fixed, schema);
    const QByteArray encodedHit = (*prepared)->command(false, "bench-0", 0)->bytes();
    const QStringList evalsha = decodeArguments(encodedHit);

    printLine("bench_hit: one private redis-server %s%s, %lld s per Tollgate run, best of %d "
              "rounds, user bench-0\n",
              qPrintable(server.url()), parser.isSet(QStringLiteral("fifo")) ? " (SCHED_FIFO)" : "",
              qint64(seconds.count()), rounds);
    printLine("%-6s %12s %12s %6s %12s %16s %18s\n", "c x p", "tollgate/s", "redis-b/s", "ratio",
              "INCR/s", "srv us/call t|rb", "cli CPU us t|rb");
    double fixedTotalUsecPerHit = 0;
    // At 1x1 the rounds also run a bare client (bench/floor) with the same command: the floor
    // of a round trip here, plain and with redis-benchmark's epoll_ctl habit.
    bench::FloorRun floorPlain, floorTouched;
    double tollgate1x1 = 0, redisBenchmark1x1 = 0;
    for (const Concurrency c : kConcurrencies) {
        const bool oneByOne = c.connections == 1 && c.pipeline == 1;
        // Rounds alternate Tollgate and redis-benchmark; the best of each is kept, so a burst
        // of load from elsewhere on the machine hurts neither side alone.
        HitLoadFigures t;
        bench::ServerFigures ts, rbs;
        bench::BenchmarkRun rb;
        for (int round = 0; round < rounds; ++round) {
            command(admin, {"CONFIG", "RESETSTAT"});
            HitLoadFigures tried =
                runHitLoad(*options, schema, fixed, {c.connections, c.pipeline, seconds, 1, false});
            if (tried.errors > 0)
                std::fprintf(stderr, "tollgate errors: %lld (%s)\n", tried.errors,
                             qPrintable(tried.firstError->toString()));
            if (tried.opsPerSecond() > t.opsPerSecond()) {
                t = std::move(tried);
                ts = serverFigures(admin);
            }
            const qint64 requests = std::max<qint64>(t.hits, 10'000);
            command(admin, {"CONFIG", "RESETSTAT"});
            const bench::BenchmarkRun rbTried =
                bench::redisBenchmark(server.port(), c, requests, evalsha);
            if (rbTried.opsPerSecond > rb.opsPerSecond) {
                rb = rbTried;
                rbs = serverFigures(admin);
            }
            if (oneByOne)
                runFloorRound(server.port(), encodedHit, requests, round, floorPlain, floorTouched);
        }
        if (oneByOne) {
            tollgate1x1 = t.opsPerSecond();
            redisBenchmark1x1 = rb.opsPerSecond;
        }
        if (c.connections == 8 && c.pipeline == 16)
            fixedTotalUsecPerHit = ts.totalUsec / double(std::max<qint64>(1, t.hits));
        const bench::BenchmarkRun incr =
            bench::redisBenchmark(server.port(), c, std::max<qint64>(t.hits, 10'000) * 2,
                                  {QStringLiteral("INCR"), QStringLiteral("bench:incr")});
        printLine("%-6s %12.0f %12.0f %6.2f %12.0f %8.1f|%-7.1f %9.2f|%-8.2f\n",
                  qPrintable(QStringLiteral("%1x%2").arg(c.connections).arg(c.pipeline)),
                  t.opsPerSecond(), rb.opsPerSecond, t.opsPerSecond() / rb.opsPerSecond,
                  incr.opsPerSecond, ts.evalshaUsecPerCall, rbs.evalshaUsecPerCall,
                  t.cpuMicrosPerHit(), rb.cpuMicrosPerOp);
    }

    printFloor(floorPlain, floorTouched, tollgate1x1, redisBenchmark1x1);

    // The floor: what Redis spends on any EVALSHA of that size (the keys and arguments set up,
    // the reply converted), measured the same way, on this machine, now.
    const QByteArray emptySha = command(admin, {"SCRIPT", "LOAD", "return 0"}).toBytes();
    QStringList emptyCall = evalsha;
    emptyCall[1] = QString::fromLatin1(emptySha);
    command(admin, {"CONFIG", "RESETSTAT"});
    bench::redisBenchmark(server.port(), {8, 16}, 400'000, emptyCall);
    printLine("\nan empty script with the same keys and arguments (redis-benchmark 8x16): %.1f "
              "us/call\n",
              serverFigures(admin).evalshaUsecPerCall);

    if (!bench::runAlgorithmTable(admin, *options, schema,
                                  {users, rounds, seconds, logWindowMs, server.port()}))
        return 3;
    bench::runRefusalTable(admin, *options, schema, {users, rounds, seconds});

    command(admin, {"CONFIG", "RESETSTAT"});
    const HitLoadFigures s = runHitLoad(*options, schema, fixed, {8, 16, seconds, 1, true});
    const bench::ServerFigures ss = serverFigures(admin);
    const double statsUsecPerHit = ss.totalUsec / double(std::max<qint64>(1, s.hits));
    // The stats.lua calls are the EVALSHAs beyond the hits; each costs less than a hit, so
    // their share of the calls bounds their share of the server's script time from above
    // (the per-hit times themselves move with the machine's load).
    const double statsCalls = ss.evalshaCalls - double(s.hits);
    printLine(
        "\nwith statistics (HitStats, fixed_window, 8x16): %.0f hits/s, client CPU %.2f us/hit;\n"
        "  %.0f stats.lua calls for %lld hits: <= %.3f%% extra server work "
        "(server %.2f us/hit for every command vs %.2f without, load-dependent)\n",
        s.opsPerSecond(), s.cpuMicrosPerHit(), statsCalls, s.hits,
        100.0 * statsCalls / double(std::max<qint64>(1, s.hits)), statsUsecPerHit,
        fixedTotalUsecPerHit);
    return 0;
}
