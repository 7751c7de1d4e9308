// tollgate: the console. Parses the command line, sets up the demo when asked, and hands
// a session to the main window; everything else lives in ui/.
#include "app/common/QuitOnSignal.h"
#include "app/demo/DemoCluster.h"
#include "app/demo/DemoOverrides.h"
#include "app/demo/DemoPool.h"
#include "app/demo/DemoPopulation.h"
#include "app/demo/DemoServer.h"
#include "app/demo/DemoTraffic.h"
#include "app/gui/ConsoleOptions.h"
#ifdef TOLLGATE_WITH_SERVICE
#include "service/demo/DemoEdge.h"
#endif
#include "ui/common/PaletteChoice.h"
#include "ui/common/Session.h"
#include "ui/connection/ConnectionDialog.h"
#include "ui/connection/ProfileStore.h"
#include "ui/connection/SshAskPass.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ScreenshotTour.h"
#include "ui/shell/ViewMemory.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QSettings>
#include <cstdio>

using namespace tollgate;
using namespace tollgate::ui;

namespace {

int fail(const QString& message)
{
    std::fprintf(stderr, "tollgate: %s\n", qPrintable(message));
    if (qobject_cast<QApplication*>(QCoreApplication::instance()) &&
        qEnvironmentVariableIsEmpty("TOLLGATE_NO_DIALOGS"))
        QMessageBox::critical(nullptr, QStringLiteral("Tollgate"), message);
    return 1;
}

} // namespace

int main(int argc, char* argv[])
{
    if (isSshAskPass()) // ssh asking for a password or passphrase for a tunnel of ours
        return runSshAskPass(argc, argv);
    if (const std::optional<int> answered = console::answerWithoutDisplay(argc, argv))
        return *answered;
    QApplication app(argc, argv);
    console::setApplicationIdentity();
    QApplication::setDesktopFileName(QStringLiteral("tollgate"));

    console::ConsoleOptions options;
    QCommandLineParser& parser = options.parser;
    const QCommandLineOption &demo = options.demo, &cluster = options.cluster, &url = options.url,
                             &profile = options.profile, &readOnly = options.readOnly,
                             &prefix = options.prefix, &screenshots = options.screenshots,
                             &palette = options.palette;
    parser.process(app);

    const QString paletteName =
        parser.isSet(palette) ? parser.value(palette) : qEnvironmentVariable("TOLLGATE_PALETTE");
    const std::optional<PaletteChoice> paletteChosen = paletteChoiceNamed(paletteName);
    if (!paletteName.isEmpty() && !paletteChosen)
        return fail(
            QStringLiteral("--palette: \"%1\" is not dark, light or system").arg(paletteName));

    if (parser.isSet(cluster) && !parser.isSet(demo))
        return fail(QStringLiteral("--cluster only goes with --demo (to connect to a cluster, "
                                   "give --url of any of its nodes)"));
    const bool pool = parser.isSet(options.twemproxy);
    if (pool && (!parser.isSet(demo) || parser.isSet(cluster)))
        return fail(QStringLiteral("--twemproxy only goes with --demo, not with --cluster (to "
                                   "connect to a pool, give --url redis+twemproxy://...)"));
    qint64 seededSubjects = 0;
    if (parser.isSet(options.subjects)) {
        bool isNumber = false;
        seededSubjects = parser.value(options.subjects).toLongLong(&isNumber);
        if (!isNumber || seededSubjects < 1 || seededSubjects > 10'000'000)
            return fail(QStringLiteral("--subjects: \"%1\" is not a number from 1 to 10000000")
                            .arg(parser.value(options.subjects)));
        if (!parser.isSet(demo) || parser.isSet(cluster) || pool)
            return fail(QStringLiteral("--subjects only goes with --demo, on one server"));
    }

    // Declaration order is destruction order in reverse: the traffic stops first, then the
    // window and its session, and the demo servers last.
    DemoServer demoServer;
    DemoCluster demoCluster;
    DemoPool demoPool;
    ProfileStore profiles;
    MainWindow window(&profiles);
    // The last run's size, page, palette and column widths; never for the screenshots, whose
    // sizes and palette come from their flags alone.
    if (!parser.isSet(screenshots))
        new ViewMemory(&window, std::make_unique<QSettings>(QStringLiteral("Tollgate"),
                                                            QStringLiteral("tollgate")));
    if (paletteChosen) // the command line over the remembered choice
        applyPaletteChoice(*paletteChosen);
    std::unique_ptr<DemoTraffic> traffic;
#ifdef TOLLGATE_WITH_SERVICE
    std::unique_ptr<service::DemoEdge> edge; // tollgated, with part of the traffic through it
#endif
    std::unique_ptr<DemoPopulation> population;
    ScreenshotTour* tour = nullptr;

    SshOptions sshFromCommandLine;
    if (parser.isSet(options.ssh)) {
        sshFromCommandLine.destination = parser.value(options.ssh);
        sshFromCommandLine.configFile = parser.value(options.sshConfig);
        sshFromCommandLine.identityFile = parser.value(options.sshIdentity);
        sshFromCommandLine.acceptNewHostKey = parser.isSet(options.sshAcceptNewHostKey);
        if (const Status valid = SshOptions::validateDestination(sshFromCommandLine.destination);
            !valid)
            return fail(QStringLiteral("--ssh: ") + valid.error().message);
        if (!parser.isSet(url))
            return fail(QStringLiteral("--ssh goes with --url (a profile has its own SSH "
                                       "settings)"));
    }
    auto adjust = [&](Session::Settings settings) {
        if (sshFromCommandLine.enabled())
            settings.connection.ssh = sshFromCommandLine;
        // ssh asks for passwords and passphrases through this program, in a dialog.
        if (settings.connection.ssh.enabled())
            settings.connection.ssh.askPassProgram = QCoreApplication::applicationFilePath();
        if (parser.isSet(readOnly))
            settings.readOnly = true;
        if (parser.isSet(prefix))
            settings.prefix = parser.value(prefix).toUtf8();
        return settings;
    };

    if (parser.isSet(demo) || parser.isSet(url)) {
        QString target = parser.value(url);
        if (parser.isSet(demo)) {
            quitOnTerminationSignals(); // Ctrl+C still stops and removes the private servers
            if (parser.isSet(cluster))
                std::fprintf(stderr, "tollgate: starting a private Redis Cluster "
                                     "(3 primaries, 3 replicas)...\n");
            const Status started =
                parser.isSet(cluster) ? demoCluster.start(3, 1)
                : pool                ? demoPool.start()
                       // Every command of the demo is fast: a lower bar gives
                       // its slow log entries.
                       : demoServer.start(
                             {QStringLiteral("--slowlog-log-slower-than"), QStringLiteral("200")});
            if (!started)
                return fail(started.error().message);
            target = parser.isSet(cluster) ? demoCluster.seedUrl()
                     : pool                ? demoPool.url()
                                           : demoServer.url();
            if (pool) // a backend paused for 4 s every 45 s: the proxy ejects it, then takes it
                      // back
                demoPool.startEjections(45'000, 4'000);
        }
        Result<ConnectionOptions> options = ConnectionOptions::fromUrl(target);
        if (!options)
            return fail(QStringLiteral("--url: %1").arg(options.error().message));
        Session::Settings settings;
        settings.connection = options.value();
        // Kept out of `ps`, as for tollgatectl; the demo's private server has no password.
        if (!parser.isSet(demo) && settings.connection.password.isEmpty())
            settings.connection.password = ConnectionOptions::passwordFromEnvironment();
        settings.profileName = !parser.isSet(demo)     ? QString()
                               : parser.isSet(cluster) ? QStringLiteral("demo cluster")
                               : pool                  ? QStringLiteral("demo pool")
                                                       : QStringLiteral("demo");
        settings = adjust(settings);
        if (parser.isSet(demo)) {
            DemoTraffic::Options options;
            options.overriddenUsers = true; // so the console has overrides to show
            traffic = std::make_unique<DemoTraffic>(settings.connection, KeySchema(settings.prefix),
                                                    options);
            QObject::connect(traffic.get(), &DemoTraffic::failed, &window, [](const Error& e) {
                std::fprintf(stderr, "tollgate: demo traffic: %s\n", qPrintable(e.toString()));
            });
        }
#ifdef TOLLGATE_WITH_SERVICE
        if (parser.isSet(demo)) {
            edge = std::make_unique<service::DemoEdge>();
            QObject::connect(edge.get(), &service::DemoEdge::failed, &window, [](const QString& why) {
                std::fprintf(stderr, "tollgate: demo service: %s (the demo goes on without it)\n",
                             qPrintable(why));
            });
        }
#endif
        auto connectConsole = [&, settings, target] {
            if (traffic)
                traffic->start();
#ifdef TOLLGATE_WITH_SERVICE
            if (edge)
                edge->start(target, settings.prefix);
#endif
            window.setSession(std::make_unique<Session>(settings));
        };
        if (seededSubjects > 0) {
            // The keyspace is written before the console and the traffic start, so what they
            // show is a server that has been this big all along.
            std::fprintf(stderr, "tollgate: seeding %lld subjects...\n",
                         static_cast<long long>(seededSubjects));
            population =
                std::make_unique<DemoPopulation>(settings.connection, KeySchema(settings.prefix));
            auto clock = std::make_shared<QElapsedTimer>();
            clock->start();
            QObject::connect(population.get(), &DemoPopulation::finished, &window,
                             [connectConsole, clock, &tour](const Status& status) {
                                 if (!status) {
                                     std::fprintf(stderr, "tollgate: --subjects: %s\n",
                                                  qPrintable(status.error().toString()));
                                     QCoreApplication::exit(1);
                                     return;
                                 }
                                 std::fprintf(stderr, "tollgate: seeded in %.1f s\n",
                                              double(clock->elapsed()) / 1000.0);
                                 connectConsole();
                                 if (tour)
                                     tour->start();
                             });
            population->seed(seededSubjects);
        } else {
            connectConsole();
        }
        if (parser.isSet(cluster) || pool)
            window.showPage(QStringLiteral("cluster")); // the new thing to look at
        window.show();
    } else if (parser.isSet(profile)) {
        const std::optional<ConnectionProfile> saved = profiles.load(parser.value(profile));
        if (!saved)
            return fail(QStringLiteral("no profile named \"%1\"").arg(parser.value(profile)));
        window.show();
        profiles.readPassword(saved->name, &window, [&, p = *saved](const auto& password) {
            if (!password.found && !profiles.keychainAvailable()) {
                // Nowhere to get it from: ask, with the profile already filled in.
                window.showConnectionDialog();
                return;
            }
            window.setSession(
                std::make_unique<Session>(adjust(p.toSessionSettings(password.password))));
        });
    } else {
        window.show();
        auto* dialog = new ConnectionDialog(&profiles, &window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        QObject::connect(dialog, &QDialog::accepted, &window, [&, dialog] {
            window.setSession(std::make_unique<Session>(adjust(dialog->sessionSettings())));
        });
        dialog->open();
    }

    if (parser.isSet(screenshots)) {
        const QByteArray user = DemoTraffic::abusiveUsers().value(0);
        tour = new ScreenshotTour(&window, parser.value(screenshots), user, &window);
        tour->addUser(QStringLiteral("user-overrides"), DemoOverrides::trialUser());
        // TOLLGATE_SCREENSHOT_SIZE=1024x700: the pictures at another window size.
        const QStringList size = qEnvironmentVariable("TOLLGATE_SCREENSHOT_SIZE").split(u'x');
        if (size.size() == 2 && size[0].toInt() > 0 && size[1].toInt() > 0)
            tour->setSize(QSize(size[0].toInt(), size[1].toInt()));
        QObject::connect(tour, &ScreenshotTour::finished, &app,
                         [](bool ok, const QStringList& failed) {
                             if (!ok)
                                 std::fprintf(stderr, "tollgate: screenshots not taken: %s\n",
                                              qPrintable(failed.join(QStringLiteral(", "))));
                             QCoreApplication::exit(ok ? 0 : 1);
                         });
        if (!population) // otherwise once the subjects are seeded
            tour->start();
    }

    const int status = app.exec();
    if (traffic)
        traffic->stop();
    return status;
}
