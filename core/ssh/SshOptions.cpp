#include "tollgate/ConnectionOptions.h"

namespace tollgate {

namespace {

struct Destination
{
    QString user;
    QString host;
    QString port; // empty: the config's Port, else 22
};

Result<Destination> parseDestination(const QString& text)
{
    auto bad = [&text](const QString& why) {
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("SSH destination '%1': %2 (expected [user@]host[:port])")
                         .arg(text, why)};
    };
    if (text.isEmpty())
        return bad(QStringLiteral("empty"));
    for (const QChar c : text)
        if (c.isSpace() || c.category() == QChar::Other_Control)
            return bad(QStringLiteral("spaces or control characters"));
    if (text.startsWith(QLatin1Char('-')))
        return bad(QStringLiteral("starts with '-'"));
    Destination d;
    QString rest = text;
    const qsizetype at = rest.lastIndexOf(QLatin1Char('@'));
    if (at >= 0) {
        d.user = rest.left(at);
        rest = rest.mid(at + 1);
        if (d.user.isEmpty())
            return bad(QStringLiteral("no user before '@'"));
    }
    if (rest.startsWith(QLatin1Char('['))) {
        const qsizetype close = rest.indexOf(QLatin1Char(']'));
        if (close < 0)
            return bad(QStringLiteral("no ']' after the IPv6 address"));
        d.host = rest.mid(1, close - 1);
        const QString after = rest.mid(close + 1);
        if (!after.isEmpty() && !after.startsWith(QLatin1Char(':')))
            return bad(QStringLiteral("text after ']'"));
        d.port = after.mid(1);
    } else if (rest.count(QLatin1Char(':')) == 1) {
        const qsizetype colon = rest.indexOf(QLatin1Char(':'));
        d.host = rest.left(colon);
        d.port = rest.mid(colon + 1);
    } else {
        d.host = rest; // a host name, an alias, or an IPv6 address without a port
    }
    if (d.host.isEmpty())
        return bad(QStringLiteral("no host"));
    if (!d.port.isNull()) {
        bool ok = false;
        const int port = d.port.toInt(&ok);
        if (!ok || port < 1 || port > 65535)
            return bad(QStringLiteral("port must be 1..65535"));
    }
    return d;
}

} // namespace

bool SshOptions::operator==(const SshOptions& other) const
{
    return destination == other.destination && configFile == other.configFile &&
           identityFile == other.identityFile && acceptNewHostKey == other.acceptNewHostKey &&
           askPassProgram == other.askPassProgram;
}

Status SshOptions::validateDestination(const QString& destination)
{
    const auto parsed = parseDestination(destination);
    if (!parsed)
        return parsed.error();
    return Unit{};
}

QStringList SshOptions::serverArguments() const
{
    QStringList args;
    if (!configFile.isEmpty())
        args << QStringLiteral("-F") << configFile;
    if (!identityFile.isEmpty())
        args << QStringLiteral("-i") << identityFile;
    const auto d = parseDestination(destination);
    const Destination parsed = d ? *d : Destination{{}, destination, {}};
    if (!parsed.user.isEmpty())
        args << QStringLiteral("-l") << parsed.user;
    if (!parsed.port.isEmpty())
        args << QStringLiteral("-p") << parsed.port;
    // On the command line, so it wins over any StrictHostKeyChecking of the config: an unknown
    // key is never trusted silently, a changed one never at all.
    args << QStringLiteral("-o")
         << (acceptNewHostKey ? QStringLiteral("StrictHostKeyChecking=accept-new")
                              : QStringLiteral("StrictHostKeyChecking=yes"));
    args << QStringLiteral("--") << parsed.host;
    return args;
}

} // namespace tollgate
