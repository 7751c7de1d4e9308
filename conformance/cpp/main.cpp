// The conformance suite through the C++ library, the reference every other client is held to
// (conformance/README.md). Starts its own redis-server, or with --cluster a private
// three-primary Redis Cluster for the cases marked "cluster": true.
//
// usage: tollgate_conformance [--cluster] <cases folder | case.json ...>
#include "conformance/cpp/CaseFile.h"
#include "conformance/cpp/CaseRunner.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/RedisServer.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <signal.h>
#include <cstdio>

using namespace tollgate;

namespace {

QStringList casePaths(const QStringList& arguments)
{
    QStringList paths;
    for (const QString& argument : arguments) {
        if (QFileInfo(argument).isDir()) {
            const QDir folder(argument);
            for (const QString& name : folder.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
                paths << folder.filePath(name);
        } else {
            paths << argument;
        }
    }
    return paths;
}

void print(const QString& line)
{
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QStringList arguments = app.arguments().mid(1);
    const bool onCluster = arguments.removeAll(QStringLiteral("--cluster")) > 0;
    const QStringList paths = casePaths(arguments);
    if (paths.isEmpty()) {
        std::fputs("usage: tollgate_conformance [--cluster] <cases folder | case.json ...>\n", stderr);
        return 2;
    }

    test::RedisServer server;
    test::RedisCluster cluster;
    conformance::Server target;
    if (onCluster) {
        if (!cluster.start(3, 0)) {
            print(QStringLiteral("cannot start a Redis Cluster: ") + cluster.errorString());
            return 1;
        }
        target = {cluster.seedUrl(), true, {}};
    } else {
        if (!server.start()) {
            print(QStringLiteral("cannot start redis-server: ") + server.errorString());
            return 1;
        }
        const qint64 pid = server.processId();
        target = {server.url(), false, [pid](bool frozen) { ::kill(pid_t(pid), frozen ? SIGSTOP : SIGCONT); }};
    }
    conformance::CaseRunner runner(target);
    QString error;
    if (!runner.connect(&error)) {
        print(QStringLiteral("cannot reach the server: ") + error);
        return 1;
    }

    int passed = 0, failed = 0, skipped = 0;
    for (const QString& path : paths) {
        auto testCase = conformance::CaseFile::load(path, &error);
        const QString line = testCase ? runner.run(*testCase)
                                      : QStringLiteral("FAIL %1: bad case: %2").arg(QFileInfo(path).fileName(), error);
        print(line);
        passed += line.startsWith(QLatin1String("PASS"));
        failed += line.startsWith(QLatin1String("FAIL"));
        skipped += line.startsWith(QLatin1String("SKIP"));
    }
    print(QStringLiteral("%1 passed, %2 failed").arg(passed).arg(failed) +
          (skipped ? QStringLiteral(", %1 skipped").arg(skipped) : QString()));
    return failed ? 1 : 0;
}
