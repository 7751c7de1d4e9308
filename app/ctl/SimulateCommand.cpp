// tollgatectl simulate: the console demo's traffic (app/demo/DemoTraffic) against any server:
// example policies, many ordinary users and a few abusive ones who reach warn, deny and ban.
#include "app/common/QuitOnSignal.h"
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "app/demo/DemoTraffic.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonObject>
#include <QTimer>

namespace tollgate::ctl {

int simulateCommand(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("seconds"), QStringLiteral("How long (default 10; 0 = until interrupted)."),
         QStringLiteral("n"), QStringLiteral("10")},
        {QStringLiteral("users"), QStringLiteral("Ordinary users (default 200)."),
         QStringLiteral("n"), QStringLiteral("200")},
        {QStringLiteral("rate"), QStringLiteral("At most this many hits per second (default 300)."),
         QStringLiteral("n"), QStringLiteral("300")},
    });
    if (auto exit = parseArguments(parser, args, 0, 0))
        return *exit;
    bool ok = false;
    const int seconds = parser.value(QStringLiteral("seconds")).toInt(&ok);
    if (!ok || seconds < 0 || seconds > 86'400)
        return usage(QStringLiteral("--seconds must be 0..86400"));
    DemoTraffic::Options options;
    options.ordinaryUsers = parser.value(QStringLiteral("users")).toInt(&ok);
    if (!ok || options.ordinaryUsers < 1 || options.ordinaryUsers > 1'000'000)
        return usage(QStringLiteral("--users must be 1..1000000"));
    options.maxHitsPerSecond = parser.value(QStringLiteral("rate")).toInt(&ok);
    if (!ok || options.maxHitsPerSecond < 1 || options.maxHitsPerSecond > 100'000)
        return usage(QStringLiteral("--rate must be 1..100000"));
    options.actor = cli.actor;

    auto connection = cli.connectionOptions();
    if (!connection)
        return fail(connection.error());
    connection->autoReconnect = false; // a dead server ends the run with exit 3, not silence
    DemoTraffic traffic(*connection, cli.schema(), options);
    int exitCode = ExitOk;
    QObject::connect(&traffic, &DemoTraffic::failed, [&exitCode](const Error& error) {
        exitCode = fail(error);
        QCoreApplication::exit(exitCode);
    });
    if (seconds > 0)
        QTimer::singleShot(std::chrono::seconds(seconds), [] { QCoreApplication::exit(ExitOk); });
    traffic.start();
    quitOnTerminationSignals(); // Ctrl+C ends the run cleanly (an SSH tunnel's files go too)
    QCoreApplication::exec();
    traffic.stop();
    if (exitCode != ExitOk)
        return exitCode;
    if (cli.json)
        printJson(QJsonObject{{QStringLiteral("hits_sent"), traffic.hitsSent()},
                              {QStringLiteral("seconds"), seconds}});
    else
        printLine(QStringLiteral("simulated %1 hits in %2 s").arg(traffic.hitsSent()).arg(seconds));
    return ExitOk;
}

} // namespace tollgate::ctl
