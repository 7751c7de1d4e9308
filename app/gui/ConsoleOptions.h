#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <optional>

namespace tollgate::console {

/// The console's command line. Kept apart from main() so that --help and --version can be
/// answered before any window system is touched (a server without a display, a package check).
struct ConsoleOptions
{
    ConsoleOptions();

    QCommandLineParser parser;
    const QCommandLineOption demo;
    const QCommandLineOption cluster;
    const QCommandLineOption twemproxy;
    const QCommandLineOption subjects;
    const QCommandLineOption url;
    const QCommandLineOption profile;
    const QCommandLineOption readOnly;
    const QCommandLineOption prefix;
    const QCommandLineOption screenshots;
    const QCommandLineOption palette;
    const QCommandLineOption ssh;
    const QCommandLineOption sshConfig;
    const QCommandLineOption sshIdentity;
    const QCommandLineOption sshAcceptNewHostKey;
};

/// Names the application (name, organisation, version) for QSettings and the parser.
void setApplicationIdentity();

/// When argv asks for --help or --version, prints the answer with a QCoreApplication only and
/// returns the exit code; otherwise nothing, and the caller starts the GUI.
std::optional<int> answerWithoutDisplay(int argc, char* argv[]);

} // namespace tollgate::console
