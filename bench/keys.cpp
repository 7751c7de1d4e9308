// Keys page at scale: N keys (default 1,000,000) in a private redis-server, the real Keys page
// driven offscreen through its first scan. It measures what a user feels: the GUI thread's
// longest stall in the first seconds of the scan and over the whole scan, the scan's time
// against `redis-cli --scan` over the same keys, and the console's memory. It asserts nothing.
//
//   bench_keys [--keys 1000000] [--busy-core]   (--busy-core: a thread spins on another core)
#include "app/demo/DemoServer.h"
#include "bench/support/LagProbe.h"
#include "ui/common/Session.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QProcess>
#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>

using namespace tollgate;
using namespace tollgate::ui;

namespace {

// Runs the event loop (sleeping between events) until `done` or the timeout; returns the ms.
qint64 runUntil(const std::function<bool()>& done, qint64 timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    return clock.elapsed();
}

qint64 residentPeakMb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray text = status.readAll();
    const qsizetype at = text.indexOf("VmHWM:");
    return at < 0 ? -1
                  : text.mid(at + 6, text.indexOf('\n', at) - at - 6)
                            .trimmed()
                            .split(' ')[0]
                            .toLongLong() /
                        1024;
}

void line(const char* figure, const QString& value, const char* goal)
{
    std::printf("| %-48s | %-30s | %-10s |\n", figure, qPrintable(value), goal);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("keys"), QStringLiteral("Keys to create"), QStringLiteral("n"),
                      QStringLiteral("1000000")});
    parser.addOption({QStringLiteral("busy-core"),
                      QStringLiteral("Keep another core busy with a spinning thread")});
    parser.process(app);
    const qint64 n = qMax<qint64>(1000, parser.value(QStringLiteral("keys")).toLongLong());

    DemoServer server;
    if (const Status started = server.start(); !started) {
        std::fprintf(stderr, "bench_keys: %s\n", qPrintable(started.error().toString()));
        return 3;
    }
    {
        // MSET of 1,000 keys a call, on a client gone before the page starts.
        Client seeder(*ConnectionOptions::fromUrl(server.url()));
        seeder.open();
        for (qint64 first = 0; first < n; first += 1000) {
            Command mset{"MSET"};
            for (qint64 i = first; i < qMin(n, first + 1000); ++i)
                mset << "tg:{u" + QByteArray::number(i) + "}:like:fw:3600000"
                     << "3";
            if (!seeder.executeSync(mset)) {
                std::fprintf(stderr, "bench_keys: seeding failed\n");
                return 3;
            }
        }
    }

    QElapsedTimer cliClock;
    cliClock.start();
    QProcess cli;
    cli.start(
        QStringLiteral("bash"),
        {QStringLiteral("-c"),
         QStringLiteral("redis-cli -p %1 --scan --pattern 'tg:*' | wc -l").arg(server.port())});
    cli.waitForFinished(-1);
    const qint64 cliMs = cliClock.elapsed();

    std::atomic<bool> spinning{parser.isSet(QStringLiteral("busy-core"))};
    std::thread burner([&spinning] {
        volatile quint64 sink = 0;
        while (spinning.load(std::memory_order_relaxed))
            sink = sink + 1;
    });

    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(server.url());
    settings.actor = QStringLiteral("bench");
    Session session(settings);
    session.open();
    runUntil([&] { return session.state() == ConnectionState::Connected; }, 10'000);

    bench::LagProbe lag;
    KeysPage page(&session);
    page.resize(1280, 800);
    bool finished = false;
    QObject::connect(&page, &KeysPage::scanFinished, [&finished] { finished = true; });
    QElapsedTimer clock;
    clock.start();
    page.show(); // the first show scans
    runUntil([&] { return finished; }, 3'000);
    const qint64 firstStall = lag.takeLongest();
    const int firstOver50 = lag.takeOver50();
    const qint64 rowsAt3s = page.model()->rowCount();
    runUntil([&] { return finished; }, 600'000);
    const qint64 scanMs = clock.elapsed();
    const qint64 restStall = lag.takeLongest();
    const int restOver50 = lag.takeOver50();
    spinning = false;
    burner.join();

    std::printf("\nbench_keys: %lld keys, Keys page offscreen%s\n\n",
                static_cast<long long>(page.model()->rowCount()),
                parser.isSet(QStringLiteral("busy-core")) ? ", another core kept busy" : "");
    std::printf("| %-48s | %-30s | %-10s |\n|%s|%s|%s|\n", "figure", "measured", "goal",
                QByteArray(50, '-').constData(), QByteArray(32, '-').constData(),
                QByteArray(12, '-').constData());
    line("longest GUI stall, first 3 s of the scan",
         QStringLiteral("%1 ms (%2 over 50 ms; %3 rows)")
             .arg(firstStall)
             .arg(firstOver50)
             .arg(rowsAt3s),
         "<= 50 ms");
    line("longest GUI stall, rest of the scan",
         QStringLiteral("%1 ms (%2 over 50 ms)").arg(restStall).arg(restOver50), "<= 50 ms");
    line("whole scan in the page vs redis-cli --scan",
         QStringLiteral("%1 s vs %2 s")
             .arg(double(scanMs) / 1000, 0, 'f', 1)
             .arg(double(cliMs) / 1000, 0, 'f', 1),
         "");
    line("peak RSS of the console (bench process)", QStringLiteral("%1 MB").arg(residentPeakMb()),
         "");
    return 0;
}
