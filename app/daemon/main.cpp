// tollgated: Tollgate as a rate limit service (docs/service.md). Envoy's rate limit service
// over gRPC, an HTTP JSON endpoint, the configuration in envoyproxy/ratelimit's YAML.
#include "app/common/QuitOnSignal.h"
#include "core/keys/IdText.h"
#include "core/redis/IoThreads.h"
#include "service/Daemon.h"
#include "service/rlqs/QuotaSettings.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Version.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QHostInfo>
#include <cstdio>

using namespace tollgate;
using namespace tollgate::service;

namespace {

enum Exit
{
    ExitOk = 0,
    ExitUsage = 2, // bad options or a bad configuration
    ExitFailed = 3 // cannot listen, cannot reach what it needs
};

void printLine(FILE* to, const QString& line)
{
    std::fprintf(to, "%s\n", line.toUtf8().constData());
    std::fflush(to);
}

int usage(const QString& message)
{
    printLine(stderr, QStringLiteral("tollgated: ") + message);
    printLine(stderr, QStringLiteral("see 'tollgated --help'"));
    return ExitUsage;
}

// `tollgated check-config FILE`: parse, translate, and say where the behaviour differs from
// envoyproxy/ratelimit. Exit 0 when valid, 2 with the error (file:line: field: what) when not.
int checkConfig(const QString& path)
{
    auto config = loadServiceConfig(path);
    if (!config) {
        printLine(stderr, QStringLiteral("tollgated: ") + config.error().message);
        return ExitUsage;
    }
    if (auto quota = loadQuotaSettings(*config); !quota) { // service/rlqs
        printLine(stderr, QStringLiteral("tollgated: ") + quota.error().message);
        return ExitUsage;
    }
    for (const DomainConfig& domain : config->domains)
        printLine(stdout, QStringLiteral("domain %1 (%2)").arg(QString::fromUtf8(domain.domain), domain.file));
    for (const Policy& policy : config->policies)
        printLine(stdout, QStringLiteral("  policy %1: %2 %3%4%5")
                              .arg(QString::fromUtf8(policy.action),
                                   QString::fromLatin1(algorithmName(policy.algorithm)),
                                   policy.windowsText(),
                                   policy.shadow ? QStringLiteral(", shadow") : QString(),
                                   policy.hasBan() ? QStringLiteral(", ") + policy.banText() : QString()));
    for (const QString& note : config->notes)
        printLine(stdout, QStringLiteral("note: ") + note);
    printLine(stdout, QStringLiteral("ok: %1 domain(s), %2 policies, digest %3")
                          .arg(config->domains.size())
                          .arg(config->policies.size())
                          .arg(QString::fromLatin1(config->digest.left(12))));
    return ExitOk;
}

std::optional<qint64> bytesOf(const QString& text)
{
    static const std::pair<const char*, qint64> units[] = {
        {"GB", 1LL << 30}, {"G", 1LL << 30}, {"MB", 1LL << 20}, {"M", 1LL << 20},
        {"KB", 1LL << 10}, {"K", 1LL << 10}, {"B", 1}};
    for (const auto& [suffix, scale] : units) {
        if (text.endsWith(QLatin1String(suffix), Qt::CaseInsensitive)) {
            bool ok = false;
            const qint64 number = text.chopped(int(qstrlen(suffix))).toLongLong(&ok);
            return ok && number >= 0 ? std::optional<qint64>(number * scale) : std::nullopt;
        }
    }
    bool ok = false;
    const qint64 number = text.toLongLong(&ok);
    return ok && number >= 0 ? std::optional<qint64>(number) : std::nullopt;
}

} // namespace

int main(int argc, char** argv)
{
    // The main thread serves HTTP: the I/O threads' epoll loop costs it less a wake-up than
    // GLib's (docs/performance.md, "The rate limit service").
    if (QAbstractEventDispatcher* dispatcher = IoThreads::newDispatcher())
        QCoreApplication::setEventDispatcher(dispatcher);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("tollgated"));
    QCoreApplication::setApplicationVersion(
        QStringLiteral("%1 (script contract %2)").arg(QLatin1String(kVersion)).arg(kScriptContract));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Tollgate's rate limit service: Envoy's RLS v3 over gRPC and an HTTP JSON endpoint.\n"
        "  tollgated --config FILE|DIR [--url URL] [options]\n"
        "  tollgated check-config FILE|DIR"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("check-config FILE (optional)"));
    const QCommandLineOption config(QStringLiteral("config"),
                                    QStringLiteral("The configuration: a YAML file, or a directory of them."),
                                    QStringLiteral("path"));
    const QCommandLineOption url(QStringLiteral("url"),
                                 QStringLiteral("Redis: redis://, rediss://, unix://, redis+sentinel:// "
                                                "(default $TOLLGATE_URL, else redis://127.0.0.1:6379)."),
                                 QStringLiteral("url"));
    const QCommandLineOption prefix(QStringLiteral("prefix"), QStringLiteral("Key prefix (default tg)."),
                                    QStringLiteral("prefix"), QStringLiteral("tg"));
    const QCommandLineOption grpc(QStringLiteral("grpc"),
                                  QStringLiteral("gRPC address host:port, or 'off' (default 127.0.0.1:8081)."),
                                  QStringLiteral("address"), QStringLiteral("127.0.0.1:8081"));
    const QCommandLineOption http(QStringLiteral("http"),
                                  QStringLiteral("HTTP address host:port, or 'off' (default 127.0.0.1:8080)."),
                                  QStringLiteral("address"), QStringLiteral("127.0.0.1:8080"));
    const QCommandLineOption grpcThreads(QStringLiteral("grpc-threads"),
                                         QStringLiteral("Threads serving gRPC calls (default: half the cores, at least one)."),
                                         QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption httpThreads(QStringLiteral("http-threads"),
                                         QStringLiteral("Threads serving HTTP connections (default: one per core)."),
                                         QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption cache(QStringLiteral("cache-size"),
                                   QStringLiteral("Memory for refusals answered without Redis, e.g. 64MB "
                                                  "(default); 0 turns the cache off."),
                                   QStringLiteral("bytes"), QStringLiteral("64MB"));
    const QCommandLineOption onError(QStringLiteral("on-error"),
                                     QStringLiteral("When Redis cannot answer: allow, deny, insurance, or "
                                                    "report (each policy's on_error; the default)."),
                                     QStringLiteral("mode"));
    const QCommandLineOption actor(QStringLiteral("actor"),
                                   QStringLiteral("Who writes the configuration's policies, in the audit "
                                                  "trail (default tollgated@<host>)."),
                                   QStringLiteral("name"));
    const QCommandLineOption noAnnounce(QStringLiteral("no-announce"),
                                        QStringLiteral("Do not register this instance in Redis."));
    const QCommandLineOption httpMaxConnections(
        QStringLiteral("http-max-connections"),
        QStringLiteral("HTTP connections open at once; more are answered 503 (default 4096, 0: no cap)."),
        QStringLiteral("n"), QStringLiteral("4096"));
    parser.addOptions({config, url, prefix, grpc, http, grpcThreads, httpThreads, cache, onError, actor,
                       noAnnounce, httpMaxConnections});
    parser.process(app);

    const QStringList positional = parser.positionalArguments();
    if (!positional.isEmpty()) {
        if (positional.first() != QLatin1String("check-config") || positional.size() != 2)
            return usage(QStringLiteral("unknown command; the one command is 'check-config FILE'"));
        return checkConfig(positional[1]);
    }
    if (!parser.isSet(config))
        return usage(QStringLiteral("--config FILE is required"));

    DaemonOptions options;
    options.configPath = parser.value(config);
    const QString redisUrl = parser.isSet(url)
                                 ? parser.value(url)
                                 : qEnvironmentVariable("TOLLGATE_URL", QStringLiteral("redis://127.0.0.1:6379"));
    auto connection = ConnectionOptions::fromUrl(redisUrl);
    if (!connection)
        return usage(QStringLiteral("bad --url: ") + connection.error().message);
    if (connection->password.isEmpty())
        connection->password = ConnectionOptions::passwordFromEnvironment();
    options.connection = *connection;
    options.prefix = parser.value(prefix).toUtf8();
    if (const Status valid = KeySchema::validatePrefix(options.prefix); !valid)
        return usage(QStringLiteral("--prefix: ") + valid.error().message);
    const auto address = [](const QString& value) {
        return value == QLatin1String("off") ? QString() : value;
    };
    options.grpcListen = address(parser.value(grpc));
    options.httpListen = address(parser.value(http));
    bool threadsOk = false;
    options.grpcThreads = parser.value(grpcThreads).toInt(&threadsOk);
    if (!threadsOk || options.grpcThreads < 0 || options.grpcThreads > 256)
        return usage(QStringLiteral("--grpc-threads: '%1' is not 0 (one per core) to 256").arg(parser.value(grpcThreads)));
    options.httpThreads = parser.value(httpThreads).toInt(&threadsOk);
    if (!threadsOk || options.httpThreads < 0 || options.httpThreads > 256)
        return usage(QStringLiteral("--http-threads: '%1' is not 0 (one per core) to 256").arg(parser.value(httpThreads)));
    const auto bytes = bytesOf(parser.value(cache));
    if (!bytes)
        return usage(QStringLiteral("--cache-size: '%1' is not a size (64MB, 512KB, 0)").arg(parser.value(cache)));
    options.cacheBytes = *bytes;
    if (parser.isSet(onError)) {
        const QString mode = parser.value(onError);
        const auto parsed = mode == QLatin1String("report")
                                ? std::optional<FailureMode>(FailureMode::Report)
                                : failureModeFromName(mode.toUtf8());
        if (!parsed)
            return usage(QStringLiteral("--on-error: '%1' is not allow, deny, insurance or report").arg(mode));
        options.onError = *parsed;
    }
    options.actor = parser.isSet(actor) ? parser.value(actor)
                                        : QStringLiteral("tollgated@") + QHostInfo::localHostName();
    options.announce = !parser.isSet(noAnnounce);
    bool capOk = false;
    options.httpMaxConnections = parser.value(httpMaxConnections).toInt(&capOk);
    if (!capOk || options.httpMaxConnections < 0)
        return usage(QStringLiteral("--http-max-connections: '%1' is not a whole number")
                         .arg(parser.value(httpMaxConnections)));

    Daemon daemon(options);
    QObject::connect(&daemon, &Daemon::log, [](const QString& line) {
        printLine(stderr, QStringLiteral("tollgated: ") + line);
    });
    // Before start(), which announces the instance: a SIGTERM from then on must stop it cleanly
    // (and withdraw it), not kill it. The signals are handled once the loop runs.
    quitOnTerminationSignals([&daemon] { daemon.reload(); });
    if (const Status started = daemon.start(); !started) {
        printLine(stderr, QStringLiteral("tollgated: ") + started.error().message);
        return started.error().kind == ErrorKind::InvalidInput ? ExitUsage : ExitFailed;
    }
    const int exit = app.exec();
    daemon.withdraw(); // out of the console's list at once, not after going stale
    return exit;
}
