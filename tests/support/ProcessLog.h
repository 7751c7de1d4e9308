#pragma once

#include <QByteArray>
#include <QProcess>
#include <QRegularExpression>

namespace tollgate::test {

// Reads `process`'s standard error into `log` until `pattern` matches all of it so far (the
// match), the process ends, or `timeoutMs` pass (a match that has no match). For the services
// the tests start, which say on stderr where they listen.
QRegularExpressionMatch waitForLogLine(QProcess& process, QByteArray& log,
                                       const QRegularExpression& pattern, int timeoutMs);

} // namespace tollgate::test
