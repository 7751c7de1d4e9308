#pragma once

#include <QProcess>

namespace tollgate {

/// What every server the demo starts needs of its process.
/// On Linux: the kernel kills the child if this process dies first (a crashed console leaves no
/// private server behind). Call before start().
void killWithParent(QProcess& process);
/// SIGTERM, then SIGKILL after 3 s. Safe when not running.
void stopChild(QProcess& process);

} // namespace tollgate
