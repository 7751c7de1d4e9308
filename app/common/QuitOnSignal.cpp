#include "app/common/QuitOnSignal.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#ifdef Q_OS_UNIX
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace tollgate {

#ifdef Q_OS_UNIX
namespace {

int g_signalPipe[2] = {-1, -1};

// A signal handler may only do async-signal-safe things: write one byte, the event loop
// does the rest.
void onSignal(int signal)
{
    const char byte = signal == SIGHUP ? 'H' : 'Q';
    [[maybe_unused]] const ssize_t written = ::write(g_signalPipe[0], &byte, 1);
}

} // namespace

void quitOnTerminationSignals(std::function<void()> onHangup)
{
    auto* app = QCoreApplication::instance();
    if (!app || g_signalPipe[0] >= 0 || ::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalPipe) != 0)
        return;
    auto* notifier = new QSocketNotifier(g_signalPipe[1], QSocketNotifier::Read, app);
    QObject::connect(notifier, &QSocketNotifier::activated, app, [notifier, onHangup] {
        char byte = 0;
        [[maybe_unused]] const ssize_t read = ::read(g_signalPipe[1], &byte, 1);
        if (byte == 'H' && onHangup) {
            onHangup();
            return;
        }
        notifier->setEnabled(false); // a second Ctrl+C while closing changes nothing
        QCoreApplication::quit();
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        ::sigaction(signal, &action, nullptr);
}
#else
void quitOnTerminationSignals(std::function<void()>) {}
#endif

} // namespace tollgate
