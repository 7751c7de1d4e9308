// bench_ssh: hits per second through an SSH tunnel against the same server directly, same
// machine, one run each: a private redis-server and a private sshd (the tests' fixtures,
// loopback ports, temporary directories), `tollgatectl bench hit` with and without --ssh, at
// two loads: 8 connections x 16 in flight (throughput) and 1 x 1 (one round trip at a time).
// Prints a markdown table; the goals live with the issue, never in a test.
#include "tests/support/RedisServer.h"
#include "tests/support/SshServer.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QProcess>
#include <QRegularExpression>
#include <cstdio>

using namespace tollgate;

namespace {

// `tollgatectl [ssh...] --url URL bench hit ...`: its "N ops/s" figure, or -1.
double benchHit(const QString& url, const QStringList& ssh, int connections, int pipeline,
                int seconds)
{
    const QString ctl =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../app/tollgatectl");
    QProcess run;
    run.setProcessChannelMode(QProcess::MergedChannels);
    run.start(ctl, ssh + QStringList{QStringLiteral("--url"), url, QStringLiteral("bench"),
                                     QStringLiteral("hit"), QStringLiteral("--connections"),
                                     QString::number(connections), QStringLiteral("--pipeline"),
                                     QString::number(pipeline), QStringLiteral("--seconds"),
                                     QString::number(seconds)});
    run.waitForFinished(-1);
    const QString out = QString::fromUtf8(run.readAll());
    const auto match = QRegularExpression(QStringLiteral("([0-9.]+) ops/s")).match(out);
    if (run.exitCode() != 0 || !match.hasMatch()) {
        std::fprintf(stderr, "bench_ssh: bench hit failed:\n%s\n", qPrintable(out));
        return -1;
    }
    return match.captured(1).toDouble();
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("seconds"), QStringLiteral("Seconds of each bench hit"),
                      QStringLiteral("s"), QStringLiteral("5")});
    parser.process(app);
    const int seconds = std::max(1, parser.value(QStringLiteral("seconds")).toInt());

    test::RedisServer redis;
    test::SshServer sshd;
    if (!redis.start() || !sshd.start()) {
        std::fprintf(stderr, "bench_ssh: %s%s\n", qPrintable(redis.errorString()),
                     qPrintable(sshd.errorString()));
        return 3;
    }
    test::SshClientConfig client;
    client.addHost(QStringLiteral("bench-bastion"), sshd);
    client.trust(sshd.knownHostsLine());
    if (!client.write())
        return 3;
    const QStringList ssh{QStringLiteral("--ssh"), QStringLiteral("bench-bastion"),
                          QStringLiteral("--ssh-config"), client.configFile()};

    std::printf("bench_ssh: one redis-server and one sshd on loopback, %d s per figure\n\n",
                seconds);
    std::printf("| tollgatectl bench hit | direct | through the SSH tunnel | tunnel/direct |\n"
                "|---|---|---|---|\n");
    bool failed = false;
    for (const auto& [connections, pipeline] : {std::pair{8, 16}, std::pair{1, 1}}) {
        const double direct = benchHit(redis.url(), {}, connections, pipeline, seconds);
        const double tunnel = benchHit(redis.url(), ssh, connections, pipeline, seconds);
        failed = failed || direct <= 0 || tunnel <= 0;
        std::printf("| %d connections x %d in flight | %.0f hits/s | %.0f hits/s | %.2f |\n",
                    connections, pipeline, direct, tunnel, direct > 0 ? tunnel / direct : 0.0);
    }
    return failed ? 3 : 0;
}
