// Console-scale benchmark: N subjects (default 1,000,000: one `like` counter each, 1 % banned,
// two policies) in a private redis-server and every page of the console offscreen (the
// window's own page set): loading the Subjects page against redis-cli --scan, then each page
// in turn with its steady command rate on the server and its longest GUI-thread stall, quiet
// and with a CPU burner beside it. It asserts nothing; tests never time anything.
//
// With --keyspace demo the subjects are those of `tollgate --demo --subjects N` instead: the
// example policies (two windows for "search", a calendar day for "upload"), bans, overrides
// and exemptions, written through the real scripts.
//
//   bench_console [--subjects 1000000] [--keyspace like|demo] [--steady 10] [--settle 3]
//                 [--no-burner] [--screenshot user.png] [--trace-stalls]
#include "app/demo/DemoPopulation.h"
#include "app/demo/DemoServer.h"
#include "app/demo/DemoTraffic.h"
#include "bench/support/LagProbe.h"
#include "bench/support/ProcessFigures.h"
#include "tollgate/Blocking.h"
#include "tollgate/PolicyStore.h"
#include "ui/common/Session.h"
#include "ui/shell/PageFactory.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"
#include "ui/user/UserDetailDialog.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QProcess>
#include <QStackedWidget>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <cstdio>
#include <ctime>
#include <functional>
#include <future>
#include <map>
#include <sys/resource.h>

using namespace tollgate;
using namespace tollgate::ui;
using namespace tollgate::bench;

namespace {

qint64 threadCpuMs()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return qint64(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

// With --trace-stalls: names every event the GUI thread took longer than 20 ms to deliver, so
// a stall the lag probe reports can be traced to its receiver.
class TracingApplication : public QApplication
{
public:
    using QApplication::QApplication;
    bool trace = false;

    bool notify(QObject* receiver, QEvent* event) override
    {
        if (!trace || QThread::currentThread() != thread()) // the GUI thread's events only
            return QApplication::notify(receiver, event);
        QElapsedTimer clock;
        clock.start();
        const qint64 cpuBefore = threadCpuMs();
        const int type = int(event->type());
        const bool result = QApplication::notify(receiver, event);
        // CPU time far below the wall time: the thread was preempted, not busy.
        if (clock.elapsed() > 20)
            std::fprintf(stderr, "stall: %lld ms (%lld ms CPU) delivering event %d to %s \"%s\"\n",
                         static_cast<long long>(clock.elapsed()),
                         static_cast<long long>(threadCpuMs() - cpuBefore), type,
                         receiver->metaObject()->className(), qPrintable(receiver->objectName()));
        return result;
    }
};

// Runs the event loop until `done` holds (or the timeout); returns the ms it took. It sleeps
// between events (the lag probe's 5 ms timer wakes it): processEvents() with a time limit
// ignores WaitForMoreEvents and would spin, taking a core from Redis and the client.
qint64 waitUntil(const std::function<bool()>& done, qint64 timeoutMs = 600'000)
{
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    return clock.elapsed();
}

void batch(Client& client, std::vector<Command> commands)
{
    std::promise<void> done;
    client.executeBatch(std::move(commands), nullptr,
                        [&done](const std::vector<Result<Reply>>&) { done.set_value(); });
    done.get_future().wait();
}

struct PageFigures
{
    qint64 steady = 0;  // server commands/s while shown, after settling
    qint64 peak = 0;    // the busiest second of it
    qint64 console = 0; // what the console counted itself (Client::commandCount), per second
    qint64 stall = 0;   // longest GUI-thread stall from the moment it was shown
};

void row(const char* figure, const QString& value, const char* goal)
{
    std::printf("| %-62s | %-26s | %-22s |\n", figure, qPrintable(value), goal);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    TracingApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("subjects"), QStringLiteral("Subjects to create"),
                      QStringLiteral("n"), QStringLiteral("1000000")});
    parser.addOption({QStringLiteral("keyspace"),
                      QStringLiteral("\"like\" (one counter each, 1 % banned) or \"demo\" (the "
                                     "demo's policies, bans and overrides)"),
                      QStringLiteral("kind"), QStringLiteral("like")});
    parser.addOption({QStringLiteral("steady"), QStringLiteral("Seconds of live refresh measured"),
                      QStringLiteral("s"), QStringLiteral("10")});
    parser.addOption({QStringLiteral("settle"),
                      QStringLiteral("Seconds each page is shown before its rate is measured"),
                      QStringLiteral("s"), QStringLiteral("3")});
    parser.addOption({QStringLiteral("no-burner"),
                      QStringLiteral("Skip the pass with a CPU burner beside the console")});
    parser.addOption({QStringLiteral("trace-stalls"),
                      QStringLiteral("Print every event that took the GUI thread over 20 ms")});
    parser.addOption({QStringLiteral("screenshot"),
                      QStringLiteral("Save the found user's detail here"), QStringLiteral("png")});
    parser.process(app);
    const qint64 n = qMax<qint64>(1000, parser.value(QStringLiteral("subjects")).toLongLong());
    const int steady = qMax(1, parser.value(QStringLiteral("steady")).toInt());
    const int settle = qMax(0, parser.value(QStringLiteral("settle")).toInt());
    app.trace = parser.isSet(QStringLiteral("trace-stalls"));

    DemoServer server;
    if (const Status started = server.start(); !started) {
        std::fprintf(stderr, "bench_console: %s\n", qPrintable(started.error().toString()));
        return 3;
    }
    const KeySchema schema;
    const bool demoKeyspace = parser.value(QStringLiteral("keyspace")) == QStringLiteral("demo");
    if (demoKeyspace) {
        Client seeder(*ConnectionOptions::fromUrl(server.url()));
        seeder.open();
        PolicyStore policies(&seeder, schema);
        for (const Policy& p : DemoTraffic::examplePolicies())
            (void)waitFor<qint64>(
                [&](auto done) { policies.save(p, QStringLiteral("bench"), nullptr, done); });
        QElapsedTimer seeding;
        seeding.start();
        DemoPopulation population(*ConnectionOptions::fromUrl(server.url()), schema);
        std::optional<Status> seeded;
        QObject::connect(&population, &DemoPopulation::finished,
                         [&seeded](const Status& status) { seeded = status; });
        population.seed(n);
        waitUntil([&] { return seeded.has_value(); });
        if (!seeded || !*seeded) {
            std::fprintf(stderr, "bench_console: seeding: %s\n",
                         seeded ? qPrintable(seeded->error().toString()) : "timed out");
            return 3;
        }
        std::fprintf(stderr, "seeded the demo's %lld subjects in %.1f s\n",
                     static_cast<long long>(n), double(seeding.elapsed()) / 1000.0);
    } else {
        // Seeding on a client of its own, gone before the console starts.
        Client seeder(*ConnectionOptions::fromUrl(server.url()));
        seeder.open();
        PolicyStore policies(&seeder, schema);
        Policy like;
        like.action = "like";
        like.windows = {{10, 3'600'000}};
        like.banMs = 3'600'000;
        Policy comment;
        comment.action = "comment";
        comment.windows = {{5, 60'000}};
        for (const Policy& p : {like, comment})
            (void)waitFor<qint64>(
                [&](auto done) { policies.save(p, QStringLiteral("bench"), nullptr, done); });
        QElapsedTimer seeding;
        seeding.start();
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        std::vector<Command> commands;
        for (qint64 i = 0; i < n; ++i) {
            const QByteArray user = "u" + QByteArray::number(i);
            commands.push_back({"SET",
                                schema.stateKey(user, "like", Algorithm::FixedWindow, 3'600'000),
                                QByteArray::number(i % 12 + 1), "PX", "3600000"});
            if (i % 100 == 7) {
                const QByteArray ban = schema.actionBanKey(user, "like");
                commands.push_back({"HSET", ban, "reason", "limit exceeded", "actor", "tollgate",
                                    "created_ms", QByteArray::number(now), "until_ms",
                                    QByteArray::number(now + 3'600'000), "scope", "action",
                                    "action", "like", "source", "auto"});
                commands.push_back({"PEXPIRE", ban, "3600000"});
            }
            if (commands.size() >= 20'000)
                batch(seeder, std::exchange(commands, {}));
        }
        batch(seeder, std::move(commands));
        std::fprintf(stderr, "seeded %lld subjects in %.1f s\n", static_cast<long long>(n),
                     double(seeding.elapsed()) / 1000.0);
    }

    Client probe(*ConnectionOptions::fromUrl(server.url())); // INFO, outside the console's count
    probe.open();

    // The reference: redis-cli --scan over the same keys, in this run. The CPU each side spends
    // says where a ratio comes from (on 2 cores, the server and the client share them).
    const double scanServerCpu = serverCpuSeconds(probe);
    const double scanClientCpu = cpuSeconds(RUSAGE_CHILDREN);
    QElapsedTimer cliScan;
    cliScan.start();
    QProcess scan;
    scan.start(
        QStringLiteral("bash"),
        {QStringLiteral("-c"),
         QStringLiteral("redis-cli -p %1 --scan --pattern 'tg:{*' | wc -l").arg(server.port())});
    scan.waitForFinished(-1);
    const qint64 scanMs = cliScan.elapsed();
    const qint64 scannedKeys = scan.readAllStandardOutput().trimmed().toLongLong();
    const double scanServer = serverCpuSeconds(probe) - scanServerCpu;
    const double scanClient = cpuSeconds(RUSAGE_CHILDREN) - scanClientCpu;

    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(server.url());
    settings.actor = QStringLiteral("bench");
    Session session(settings);
    session.open();
    waitUntil([&] { return session.state() == ConnectionState::Connected; }, 10'000);
    bench::LagProbe lag;
    // The window's own page set, one shown at a time as the navigation does.
    QStackedWidget stack;
    stack.resize(1280, 800);
    const std::vector<PageInfo> pages = createPages(&session, &stack, {});
    for (const PageInfo& info : pages)
        stack.addWidget(info.widget);
    SubjectsPage* subjectsPage = nullptr;
    for (const PageInfo& info : pages)
        if (auto* found = qobject_cast<SubjectsPage*>(info.widget))
            subjectsPage = found;
    // The window comes up first, as the console's does before a page is chosen: the fonts,
    // the style and the native window are the process's start, whatever the data.
    QWidget starting;
    stack.addWidget(&starting);
    stack.setCurrentWidget(&starting);
    stack.show();
    waitUntil([started = QDeadlineTimer(300)] { return started.hasExpired(); });
    const qint64 windowStall = lag.takeLongest();
    if (!subjectsPage) {
        std::fprintf(stderr, "bench_console: this build has no Subjects page\n");
        return 3;
    }
    SubjectsPage& page = *subjectsPage;
    SubjectsModel* model = page.model();
    bool passDone = false;
    qint64 passMs = 0; // when the enumeration itself finished (the model may still be applying)
    QElapsedTimer clock;
    QObject::connect(&page, &SubjectsPage::refreshed, [&] {
        passDone = true;
        passMs = clock.elapsed();
    });
    const double loadServerCpu = serverCpuSeconds(probe);
    const double loadClientCpu = cpuSeconds(RUSAGE_SELF);
    const std::map<QByteArray, double> loadThreadCpu = cpuSecondsByThread();
    clock.start();
    stack.setCurrentWidget(subjectsPage);
    const qint64 firstRows = waitUntil([&] { return model->rowCount() >= 1000; });
    const qint64 firstPaintStall = lag.takeLongest(); // polishing and painting the page
    const qint64 allRows = firstRows + waitUntil([&] { return passDone && model->isIdle(); });
    const qint64 loadStall = lag.takeLongest();
    const double loadServer = serverCpuSeconds(probe) - loadServerCpu;
    const double loadClient = cpuSeconds(RUSAGE_SELF) - loadClientCpu;
    QStringList perThread;
    for (const auto& [name, seconds] : cpuSecondsByThread()) {
        const auto before = loadThreadCpu.find(name);
        const double used = seconds - (before == loadThreadCpu.end() ? 0.0 : before->second);
        if (used >= 0.05)
            perThread << QStringLiteral("%1 %2")
                             .arg(QString::fromUtf8(name))
                             .arg(used * 1e6 / double(qMax<qint64>(1, n)), 0, 'f', 1);
    }

    std::printf("\nbench_console: %lld subjects (%lld keys), Subjects page offscreen, %s\n\n",
                static_cast<long long>(model->totals().subjects),
                static_cast<long long>(scannedKeys), qPrintable(server.url()));
    std::printf("| %-62s | %-26s | %-22s |\n|%s|%s|%s|\n", "figure", "measured", "goal",
                QByteArray(64, '-').constData(), QByteArray(28, '-').constData(),
                QByteArray(24, '-').constData());
    row("first 1,000 rows with TTLs on screen after connect",
        QStringLiteral("%1 ms").arg(firstRows), "<= 150 ms");
    row("all rows loaded (vs redis-cli --scan, same run)",
        QStringLiteral("%1 s vs %2 s = %3x (pass %4 s)")
            .arg(double(allRows) / 1000, 0, 'f', 1)
            .arg(double(scanMs) / 1000, 0, 'f', 1)
            .arg(double(allRows) / double(qMax<qint64>(1, scanMs)), 0, 'f', 2)
            .arg(double(passMs) / 1000, 0, 'f', 1),
        "<= 1.2x");
    row("CPU: server / client, loading vs redis-cli --scan",
        QStringLiteral("%1 / %2 s vs %3 / %4 s")
            .arg(loadServer, 0, 'f', 1)
            .arg(loadClient, 0, 'f', 1)
            .arg(scanServer, 0, 'f', 1)
            .arg(scanClient, 0, 'f', 1),
        "(explains the ratio)");
    row("client CPU per subject while loading",
        QStringLiteral("%1 us").arg(loadClient * 1e6 / double(qMax<qint64>(1, n)), 0, 'f', 2),
        "<= 5 us");
    row("  of which, by thread (us per subject)", perThread.join(QStringLiteral(", ")), "");
    row("longest GUI stall: loading",
        QStringLiteral("%1 ms (first paint %2 ms)").arg(loadStall).arg(firstPaintStall),
        "<= 50 ms");
    row("  showing the window before any page (process start)",
        QStringLiteral("%1 ms").arg(windowStall), "");

    auto* view = page.findChild<QTableView*>(QStringLiteral("subjectsTableView"));
    qint64 sortStall = 0;
    QStringList sortTimes; // each column's sort, from the click to the order swapped in
    for (int column = 0; column < SubjectsModel::ColumnCount; ++column) {
        bool applied = false;
        auto c =
            QObject::connect(model, &SubjectsModel::orderApplied, [&applied] { applied = true; });
        lag.takeLongest();
        view->sortByColumn(column, Qt::DescendingOrder);
        const qint64 took = waitUntil([&] { return applied && model->isIdle(); });
        sortTimes << QStringLiteral("%1 %2")
                         .arg(model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString())
                         .arg(took);
        sortStall = qMax(sortStall, lag.takeLongest());
        QObject::disconnect(c);
    }
    row("longest GUI stall: sorting by each column", QStringLiteral("%1 ms").arg(sortStall),
        "<= 50 ms");
    row("  each column's sort (ms)", sortTimes.join(QStringLiteral(", ")), "");

    auto* filter = page.findChild<QLineEdit*>(QStringLiteral("filterLineEdit"));
    lag.takeLongest();
    filter->setText(QStringLiteral("u12"));
    Q_EMIT filter->returnPressed();
    waitUntil([&] { return model->isIdle() && model->rowCount() < model->totals().subjects; });
    filter->clear();
    Q_EMIT filter->returnPressed();
    waitUntil([&] { return model->isIdle() && model->rowCount() == model->totals().subjects; });
    row("longest GUI stall: filtering", QStringLiteral("%1 ms").arg(lag.takeLongest()), "<= 50 ms");

    const qint64 targetIndex = n * 987'654 / 1'000'000;
    const QByteArray target = demoKeyspace ? DemoPopulation::userOf(targetIndex)
                                           : "u" + QByteArray::number(targetIndex);
    clock.restart();
    filter->setText(QString::fromUtf8(target));
    Q_EMIT filter->returnPressed();
    const qint64 found = waitUntil(
        [&] { return model->isIdle() && model->rowCount() == 1 && model->userAt(0) == target; });
    row("find an exact id among all (filter + addressed read)",
        QStringLiteral("%1 ms (%2)").arg(found).arg(QString::fromUtf8(target)), "<= 50 ms");
    row("peak RSS of the console (bench process)", QStringLiteral("%1 MB").arg(peakRssMb()),
        "<= 300 MB");

    if (parser.isSet(QStringLiteral("screenshot"))) {
        UserDetailDialog* detail = page.openUser(target);
        bool loaded = false;
        QObject::connect(detail, &UserDetailDialog::refreshed, [&loaded] { loaded = true; });
        waitUntil([&] { return loaded; }, 10'000);
        waitUntil([] { return false; }, 300);
        detail->grab().save(parser.value(QStringLiteral("screenshot")));
        detail->close();
    }
    // The CLI over everything, its peak RSS from GNU time.
    QProcess ctl;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), server.url());
    ctl.setProcessEnvironment(env);
    const QString binary =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../app/tollgatectl");
    ctl.start(
        QStringLiteral("bash"),
        {QStringLiteral("-c"),
         QStringLiteral("/usr/bin/time -f '%M %e' '%1' --json subjects | wc -l").arg(binary)});
    ctl.waitForFinished(-1);
    const QList<QByteArray> usage =
        ctl.readAllStandardError().trimmed().split('\n').last().split(' ');
    row("tollgatectl subjects --json over all",
        QStringLiteral("%1 lines, %2 s, peak RSS %3 MB")
            .arg(QString::fromUtf8(ctl.readAllStandardOutput().trimmed()),
                 QString::fromUtf8(usage.value(1)))
            .arg(usage.value(0).toLongLong() / 1024),
        "completes, <= 200 MB");
    filter->clear(); // every row again
    Q_EMIT filter->returnPressed();
    waitUntil([&] { return model->isIdle() && model->rowCount() == model->totals().subjects; });

    // Every page in turn, as the navigation shows them (the user detail over the Subjects
    // page): what it costs the server while it is on screen, after `settle` seconds, and the
    // longest GUI-thread stall from the moment it was shown.
    ServerRate rate(&probe);
    struct Shown
    {
        QString name;
        std::function<void()> show, hide;
    };
    std::vector<Shown> shown;
    for (const PageInfo& info : pages)
        shown.push_back(
            {info.title, [&stack, w = info.widget] { stack.setCurrentWidget(w); }, [] {}});
    shown.push_back({QStringLiteral("User detail"),
                     [&] {
                         stack.setCurrentWidget(&page);
                         page.openUser(target);
                     },
                     [&] {
                         if (QWidget* detail = page.findChild<UserDetailDialog*>())
                             detail->close();
                     }});
    const auto measure = [&](const Shown& what) {
        PageFigures f;
        lag.takeLongest();
        what.show();
        waitUntil([] { return false; }, qint64(settle) * 1000);
        const quint64 consoleBefore = session.client()->commandCount();
        QElapsedTimer window;
        window.start();
        rate.start();
        waitUntil([] { return false; }, qint64(steady) * 1000);
        rate.stop();
        f.console = qint64(session.client()->commandCount() - consoleBefore) * 1000 /
                    qMax<qint64>(1, window.elapsed());
        waitUntil([] { return false; }, 300); // the last INFO's answer
        f.steady = rate.average();
        f.peak = rate.peak();
        f.stall = lag.takeLongest();
        what.hide();
        return f;
    };
    std::vector<PageFigures> quiet, busy;
    for (const Shown& what : shown)
        quiet.push_back(measure(what));
    if (!parser.isSet(QStringLiteral("no-burner"))) {
        // A busy loop in a process of its own, the way another program takes the second core.
        QProcess burner;
        burner.start(QStringLiteral("bash"),
                     {QStringLiteral("-c"), QStringLiteral("while :; do :; done")});
        burner.waitForStarted();
        for (const Shown& what : shown)
            busy.push_back(measure(what));
        burner.kill();
        burner.waitForFinished();
    }
    std::printf("\n| %-12s | %-30s | %-14s | %-18s | %-18s |\n", "page",
                "steady commands/s (console's)", "busiest second", "longest GUI stall",
                "with a CPU burner");
    std::printf("|%s|%s|%s|%s|%s|\n", QByteArray(14, '-').constData(),
                QByteArray(32, '-').constData(), QByteArray(16, '-').constData(),
                QByteArray(20, '-').constData(), QByteArray(20, '-').constData());
    for (size_t i = 0; i < shown.size(); ++i)
        std::printf(
            "| %-12s | %-30s | %-14s | %-18s | %-18s |\n", qPrintable(shown[i].name),
            qPrintable(QStringLiteral("%1 (%2)").arg(quiet[i].steady).arg(quiet[i].console)),
            qPrintable(QString::number(quiet[i].peak)),
            qPrintable(QStringLiteral("%1 ms").arg(quiet[i].stall)),
            qPrintable(busy.empty() ? QStringLiteral("-")
                                    : QStringLiteral("%1 ms").arg(busy[i].stall)));
    std::printf("\ngoals: steady <= 5,000 commands/s, every stall <= 50 ms\n\n");
    std::fflush(stdout);
    stack.hide();

    return 0;
}
