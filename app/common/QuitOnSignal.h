#pragma once

#include <functional>

namespace tollgate {

/// Turns Ctrl+C (SIGINT), SIGTERM and SIGHUP into QCoreApplication::quit(), so exec() returns
/// and the destructors stop the demo's servers and remove their directories, instead of the
/// process dying with its temporary directories left behind. Call once, after the application
/// object exists; does nothing off Unix. With `onHangup`, SIGHUP calls it on the event loop
/// instead (a daemon's "reload your configuration").
void quitOnTerminationSignals(std::function<void()> onHangup = {});

} // namespace tollgate
