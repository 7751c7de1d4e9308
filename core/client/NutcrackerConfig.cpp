#include "core/client/NutcrackerConfig.h"

#include <QFile>
#include <QList>

namespace tollgate {

namespace {

QString unquoted(QByteArray value)
{
    value = value.trimmed();
    const qsizetype comment = value.indexOf(" #");
    if (comment >= 0)
        value = value.left(comment).trimmed();
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
        value = value.mid(1, value.size() - 2);
    return QString::fromUtf8(value);
}

// "host:port:weight [name]" (or "host:port" without a weight).
std::optional<NodeAddress> serverAddress(const QString& entry)
{
    const QString address = entry.section(QLatin1Char(' '), 0, 0);
    const QStringList parts = address.split(QLatin1Char(':'));
    if (parts.size() < 2 || parts.size() > 3 || parts.at(0).isEmpty())
        return std::nullopt;
    bool ok = false;
    const uint port = parts.at(1).toUInt(&ok);
    if (!ok || port == 0 || port > 65535)
        return std::nullopt;
    return NodeAddress{parts.at(0), quint16(port)};
}

} // namespace

Result<NutcrackerPool> parseNutcrackerPool(const QByteArray& yaml, const QString& pool)
{
    NutcrackerPool found;
    bool inPool = false;
    bool inServers = false;
    int lineNumber = 0;
    for (const QByteArray& raw : yaml.split('\n')) {
        ++lineNumber;
        const QByteArray line = raw.trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        auto bad = [&](const QString& why) {
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("nutcracker configuration, line ") +
                             QString::number(lineNumber) + QStringLiteral(": ") + why};
        };
        if (raw.front() != ' ' && raw.front() != '\t') { // a pool's name
            if (!line.endsWith(':'))
                return bad(QStringLiteral("expected a pool name ending in ':'"));
            inPool = QString::fromUtf8(line.chopped(1)).trimmed() == pool;
            inServers = false;
            if (inPool)
                found.name = pool;
            continue;
        }
        if (!inPool)
            continue;
        if (line.startsWith('-')) {
            if (!inServers)
                continue; // a list of another key
            const auto address = serverAddress(unquoted(line.mid(1)));
            if (!address)
                return bad(QStringLiteral("a server must be host:port:weight [name]"));
            found.servers.push_back(*address);
            const QString name =
                unquoted(line.mid(1)).section(QLatin1Char(' '), 1, 1, QString::SectionSkipEmpty);
            found.serverNames << (name.isEmpty() ? address->text() : name);
            continue;
        }
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return bad(QStringLiteral("expected 'key: value'"));
        const QByteArray key = line.left(colon).trimmed();
        const QString value = unquoted(line.mid(colon + 1));
        inServers = key == "servers";
        if (key == "listen")
            found.listen = value;
        else if (key == "hash_tag")
            found.hashTag = value;
        else if (key == "redis")
            found.redis = value == QLatin1String("true");
    }
    if (found.name.isEmpty())
        return Error{ErrorKind::NotFound,
                     QStringLiteral("nutcracker configuration has no pool named ") + pool};
    if (found.servers.empty())
        return Error{ErrorKind::InvalidInput, QStringLiteral("nutcracker pool ") + pool +
                                                  QStringLiteral(" lists no servers")};
    return found;
}

Result<NutcrackerPool> readNutcrackerPool(const QString& path, const QString& pool)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{ErrorKind::Io, path + QStringLiteral(": ") + file.errorString()};
    Result<NutcrackerPool> parsed = parseNutcrackerPool(file.readAll(), pool);
    if (!parsed)
        return Error{parsed.error().kind, path + QStringLiteral(": ") + parsed.error().message};
    return parsed;
}

} // namespace tollgate
