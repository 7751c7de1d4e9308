#pragma once

namespace tollgate {

/// Turns Ctrl+C (SIGINT), SIGTERM and SIGHUP into QCoreApplication::quit(), so exec() returns
/// and the destructors stop the demo's servers and remove their directories, instead of the
/// process dying with its temporary directories left behind. Call once, after the application
/// object exists; does nothing off Unix.
void quitOnTerminationSignals();

} // namespace tollgate
