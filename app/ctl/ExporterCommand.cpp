// tollgatectl exporter: a long-running OpenMetrics / Prometheus exporter (core/metrics) for the
// prefix on the server of --url. Stops on SIGTERM / SIGINT. See docs/metrics.md.
#include "app/common/QuitOnSignal.h"
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "core/metrics/MetricsExporter.h"
#include "core/policies/Duration.h"

#include <QCommandLineParser>
#include "core/http/ListenAddress.h"

#include <QCoreApplication>
#include <QDateTime>

namespace tollgate::ctl {

namespace {

Result<std::chrono::milliseconds> durationOption(const QCommandLineParser& parser,
                                                 const QString& name)
{
    auto ms = parseDuration(parser.value(name));
    if (!ms)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("--") + name + QStringLiteral(": ") + ms.error().message};
    return std::chrono::milliseconds(*ms);
}

} // namespace

int exporterCommand(Cli& cli, const QStringList& args)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("listen"),
         QStringLiteral("Address and port to serve on (default 127.0.0.1:9464; ':9464' = every "
                        "address)."),
         QStringLiteral("host:port"), QStringLiteral("127.0.0.1:9464")},
        {QStringLiteral("interval"),
         QStringLiteral("Pause between two background scans of the prefix (default 10s)."),
         QStringLiteral("duration"), QStringLiteral("10s")},
        {QStringLiteral("scan-pause"),
         QStringLiteral("Pause between two SCAN calls of a background scan (default 20ms)."),
         QStringLiteral("duration"), QStringLiteral("20ms")},
    });
    if (auto exit = parseArguments(parser, args, 0, 0))
        return *exit;
    auto listen = parseListenAddress(parser.value(QStringLiteral("listen")));
    if (!listen)
        return fail(Error{listen.error().kind, QStringLiteral("--listen: ") + listen.error().message});
    ExporterOptions options;
    options.address = listen->first;
    options.port = listen->second;
    auto interval = durationOption(parser, QStringLiteral("interval"));
    auto pause = interval ? durationOption(parser, QStringLiteral("scan-pause")) : interval;
    if (!pause)
        return fail(pause.error());
    options.census.interval = *interval;
    options.census.pause = *pause;

    auto connection = cli.connectionOptions();
    if (!connection)
        return fail(connection.error());
    connection->clientName = QStringLiteral("tollgate-exporter");
    connection->autoReconnect = true; // a restarted Redis is scraped again, not a dead exporter
    Client client(*connection);
    client.open();

    MetricsExporter exporter(&client, cli.schema(), options);
    // One line per problem, but not the same line every scrape while it lasts.
    QString lastProblem;
    QObject::connect(&exporter, &MetricsExporter::problem, [&lastProblem](const QString& message) {
        if (message == lastProblem)
            return;
        lastProblem = message;
        warn(message);
    });
    if (const Status started = exporter.start(); !started)
        return fail(started.error());
    std::fprintf(stderr, "tollgatectl: exporter serving http://%s:%u/metrics for prefix %s\n",
                 qPrintable(options.address.toString()), exporter.port(), cli.prefix.constData());
    std::fflush(stderr);
    quitOnTerminationSignals();
    QCoreApplication::exec();
    return ExitOk;
}

} // namespace tollgate::ctl
