#include "core/ssh/SshFailure.h"

#include <QRegularExpression>
#include <QStringList>

namespace tollgate {

namespace {

// The last line ssh wrote that says something (its banners end in rows of '@').
QString lastMessage(const QByteArray& log)
{
    const QStringList lines =
        QString::fromUtf8(log).split(QRegularExpression(QStringLiteral("[\r\n]+")),
                                     Qt::SkipEmptyParts);
    for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
        const QString text = line->trimmed();
        if (!text.isEmpty() && !text.startsWith(QLatin1Char('@')))
            return text;
    }
    return QStringLiteral("ssh exited without saying why");
}

} // namespace

QString forwardFailure(const QByteArray& sshLog)
{
    const QString last = lastMessage(sshLog);
    const QString marker = QStringLiteral("open failed: ");
    const qsizetype at = last.indexOf(marker);
    return at < 0 ? QString() : last.mid(at + marker.size());
}

Error classifySshFailure(const QString& destination, const QByteArray& sshLog)
{
    const QString prefix = QStringLiteral("ssh %1: ").arg(destination);
    if (sshLog.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") ||
        sshLog.contains("has changed and you have requested strict checking"))
        return {ErrorKind::Auth,
                prefix + QStringLiteral("the server's host key has CHANGED since it was recorded "
                                        "in known_hosts: refused (this may be an attack; if the "
                                        "server's key really changed, remove the old one with "
                                        "ssh-keygen -R and check the new one)")};
    if (sshLog.contains("host key is known for") &&
        sshLog.contains("you have requested strict checking"))
        return {ErrorKind::Auth,
                prefix + QStringLiteral("the server's host key is unknown (not in known_hosts): "
                                        "refused. Check its fingerprint, then accept it "
                                        "explicitly (tollgatectl --ssh-accept-new-host-key, or "
                                        "\"Accept a new host key\" in the console's profile)")};
    if (sshLog.contains("Host key verification failed"))
        return {ErrorKind::Auth,
                prefix + QStringLiteral("host key verification failed: ") + lastMessage(sshLog)};
    if (sshLog.contains("Permission denied") || sshLog.contains("Too many authentication failures"))
        return {ErrorKind::Auth, prefix + QStringLiteral("authentication failed: ") +
                                     lastMessage(sshLog)};
    return {ErrorKind::Io, prefix + lastMessage(sshLog)};
}

} // namespace tollgate
