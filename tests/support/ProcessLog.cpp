#include "tests/support/ProcessLog.h"

#include <QDeadlineTimer>

namespace tollgate::test {

QRegularExpressionMatch waitForLogLine(QProcess& process, QByteArray& log,
                                       const QRegularExpression& pattern, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    QRegularExpressionMatch match;
    while (!deadline.hasExpired()) {
        process.waitForReadyRead(100);
        log += process.readAllStandardError();
        match = pattern.match(QString::fromUtf8(log));
        if (match.hasMatch() || process.state() == QProcess::NotRunning)
            break;
    }
    return match;
}

} // namespace tollgate::test
