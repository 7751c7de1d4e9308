#include "tollgate/ConnectionOptions.h"

#include "core/sentinel/SentinelUrl.h"

#include <QUrl>
#include <QUrlQuery>

namespace tollgate {

// TwemproxyUrl.cpp
Status parseTwemproxyBackends(const QString& list, std::vector<NodeAddress>* backends);
Status finishTwemproxyOptions(ConnectionOptions& options);

namespace {

Result<std::chrono::milliseconds> parseMillis(const QString& text, const QString& what)
{
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < 1 || value > 3600 * 1000)
        return Error{ErrorKind::InvalidInput, what +
                                                  QStringLiteral(" must be 1..3600000 ms, got '") +
                                                  text + QLatin1Char('\'')};
    return std::chrono::milliseconds(value);
}

Result<int> parseDatabase(const QString& text)
{
    bool ok = false;
    const int db = text.toInt(&ok);
    if (!ok || db < 0 || db > 1'000'000)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("database must be a number >= 0, got '") + text +
                         QLatin1Char('\'')};
    return db;
}

Status applyQuery(ConnectionOptions& options, const QUrlQuery& query)
{
    for (const auto& [key, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (key == QLatin1String("ca")) {
            options.tls.caFile = value;
        } else if (key == QLatin1String("cert")) {
            options.tls.certFile = value;
        } else if (key == QLatin1String("key")) {
            options.tls.keyFile = value;
        } else if (key == QLatin1String("sni")) {
            options.tls.serverName = value;
        } else if (key == QLatin1String("verify")) {
            options.tls.verifyPeer = value != QLatin1String("0") && value != QLatin1String("false");
        } else if (key == QLatin1String("connect_timeout")) {
            auto ms = parseMillis(value, QStringLiteral("connect_timeout"));
            if (!ms)
                return ms.error();
            options.connectTimeout = *ms;
        } else if (key == QLatin1String("timeout")) {
            auto ms = parseMillis(value, QStringLiteral("timeout"));
            if (!ms)
                return ms.error();
            options.commandTimeout = *ms;
        } else if (key == QLatin1String("heartbeat")) {
            auto ms = parseMillis(value, QStringLiteral("heartbeat"));
            if (!ms)
                return ms.error();
            options.heartbeatInterval = *ms;
        } else if (key == QLatin1String("name")) {
            options.clientName = value;
        } else if (key == QLatin1String("cluster")) {
            options.followCluster = value != QLatin1String("0") && value != QLatin1String("false");
        } else if (key == QLatin1String("backends")) {
            if (const Status parsed = parseTwemproxyBackends(value, &options.twemproxy.backends);
                !parsed)
                return parsed.error();
        } else if (key == QLatin1String("stats")) {
            std::vector<NodeAddress> stats;
            if (const Status parsed = parseTwemproxyBackends(value, &stats);
                !parsed || stats.size() != 1)
                return Error{ErrorKind::InvalidInput,
                             QStringLiteral("stats= takes nutcracker's stats port as host:port "
                                            "(got '") +
                                 value + QStringLiteral("')")};
            options.twemproxy.stats = stats.front();
        } else if (key == QLatin1String("config")) {
            options.twemproxy.configFile = value;
        } else if (key == QLatin1String("pool")) {
            options.twemproxy.pool = value;
        } else if (key == QLatin1String("db")) {
            auto db = parseDatabase(value);
            if (!db)
                return db.error();
            options.database = *db;
        } else {
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("unknown URL option '") + key + QLatin1Char('\'')};
        }
    }
    return Unit{};
}

// The value of a query option naming a password (sentinel_password=...) replaced by "***".
QString redactQuery(QString text)
{
    const QString option = QStringLiteral("password=");
    for (qsizetype at = text.indexOf(option); at >= 0; at = text.indexOf(option, at + 1)) {
        const QChar before = at > 0 ? text.at(at - 1) : QChar();
        if (before != QLatin1Char('_') && before != QLatin1Char('?') && before != QLatin1Char('&'))
            continue;
        const qsizetype from = at + option.size();
        qsizetype end = text.indexOf(QLatin1Char('&'), from);
        const qsizetype hash = text.indexOf(QLatin1Char('#'), from);
        if (end < 0 || (hash >= 0 && hash < end))
            end = hash < 0 ? text.size() : hash;
        text.replace(from, end - from, QStringLiteral("***"));
    }
    return text;
}

} // namespace

QString ConnectionOptions::redactUrl(const QString& text)
{
    const qsizetype scheme = text.indexOf(QStringLiteral("://"));
    const qsizetype start = scheme < 0 ? 0 : scheme + 3;
    qsizetype end = text.size();
    for (QChar stop : {QLatin1Char('/'), QLatin1Char('?'), QLatin1Char('#')}) {
        const qsizetype at = text.indexOf(stop, start);
        if (at >= 0 && at < end)
            end = at;
    }
    const qsizetype at = text.lastIndexOf(QLatin1Char('@'), end - 1);
    if (at < start)
        return redactQuery(text);
    const qsizetype colon = text.indexOf(QLatin1Char(':'), start);
    // "user:pass@" keeps the user; a bare "secret@" is the legacy password-only form.
    const qsizetype secretFrom = colon >= 0 && colon < at ? colon + 1 : start;
    return redactQuery(text.left(secretFrom) + QStringLiteral("***") + text.mid(at));
}

QString ConnectionOptions::passwordFromEnvironment()
{
    for (const char* name : {"TOLLGATE_PASSWORD", "REDISCLI_AUTH"}) {
        const QString value = qEnvironmentVariable(name);
        if (!value.isEmpty())
            return value;
    }
    return {};
}

Result<ConnectionOptions> ConnectionOptions::fromUrl(const QString& url)
{
    Result<ConnectionOptions> parsed = parseUrl(url);
    if (!parsed && !url.isEmpty()) {
        QString message = parsed.error().message;
        return Error{parsed.error().kind, message.replace(url, redactUrl(url))};
    }
    return parsed;
}

Result<ConnectionOptions> ConnectionOptions::parseUrl(const QString& text)
{
    if (isSentinelUrl(text)) {
        auto sentinel = parseSentinelUrl(text);
        if (!sentinel)
            return sentinel.error();
        if (const Status applied = applyQuery(sentinel->options, sentinel->common); !applied)
            return applied.error();
        return sentinel->options;
    }
    const QUrl url(text.trimmed(), QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || scheme.isEmpty())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("not a Redis URL: '") + text +
                         QStringLiteral("' (expected redis://host:port/db, rediss://... or "
                                        "unix:///path, redis+sentinel://...)")};

    ConnectionOptions options;
    options.user = url.userName(QUrl::FullyDecoded);
    options.password = url.password(QUrl::FullyDecoded);
    // redis://:secret@host means "no user, password secret"; redis://secret@host is the
    // legacy form where the only credential is the password.
    if (!url.userName().isEmpty() && url.password().isNull() &&
        !text.contains(QStringLiteral(":@"))) {
        options.password = options.user;
        options.user.clear();
    }

    if (scheme == QLatin1String("unix")) {
        options.transport = Transport::Unix;
        options.socketPath = url.path(QUrl::FullyDecoded);
        if (options.socketPath.isEmpty())
            return Error{ErrorKind::InvalidInput, QStringLiteral("unix:// URL without a path")};
    } else if (scheme == QLatin1String("redis") || scheme == QLatin1String("rediss") ||
               scheme == QLatin1String("redis+twemproxy")) {
        options.tls.enabled = scheme == QLatin1String("rediss");
        options.twemproxy.enabled = scheme == QLatin1String("redis+twemproxy");
        if (url.host().isEmpty())
            return Error{ErrorKind::InvalidInput, QStringLiteral("URL without a host: ") + text};
        options.host = url.host();
        const int port = url.port(6379);
        if (port < 1 || port > 65535)
            return Error{ErrorKind::InvalidInput, QStringLiteral("port out of range: ") + text};
        options.port = static_cast<quint16>(port);
        QString path = url.path();
        if (path.startsWith(QLatin1Char('/')))
            path.remove(0, 1);
        if (!path.isEmpty()) {
            auto db = parseDatabase(path);
            if (!db)
                return db.error();
            options.database = *db;
        }
    } else {
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("unsupported scheme '") + scheme +
                         QStringLiteral("' (use redis://, rediss://, unix://, "
                                        "redis+sentinel:// or redis+twemproxy://)")};
    }

    const Status applied = applyQuery(options, QUrlQuery(url));
    if (!applied)
        return applied.error();
    if (const Status pool = finishTwemproxyOptions(options); !pool)
        return pool.error();
    return options;
}

QString ConnectionOptions::toUrl(bool withPassword) const
{
    QUrl url;
    QUrlQuery query;
    if (transport == Transport::Unix) {
        url.setScheme(QStringLiteral("unix"));
        url.setPath(socketPath);
        if (database != 0)
            query.addQueryItem(QStringLiteral("db"), QString::number(database));
    } else {
        url.setScheme(twemproxy.enabled ? QStringLiteral("redis+twemproxy")
                      : tls.enabled     ? QStringLiteral("rediss")
                                        : QStringLiteral("redis"));
        url.setHost(host);
        url.setPort(port);
        url.setPath(QLatin1Char('/') + QString::number(database));
        if (tls.enabled) {
            if (!tls.caFile.isEmpty())
                query.addQueryItem(QStringLiteral("ca"), tls.caFile);
            if (!tls.certFile.isEmpty())
                query.addQueryItem(QStringLiteral("cert"), tls.certFile);
            if (!tls.keyFile.isEmpty())
                query.addQueryItem(QStringLiteral("key"), tls.keyFile);
            if (!tls.serverName.isEmpty())
                query.addQueryItem(QStringLiteral("sni"), tls.serverName);
            if (!tls.verifyPeer)
                query.addQueryItem(QStringLiteral("verify"), QStringLiteral("0"));
        }
    }
    if (twemproxy.enabled && !twemproxy.configFile.isEmpty()) {
        query.addQueryItem(QStringLiteral("config"), twemproxy.configFile);
        query.addQueryItem(QStringLiteral("pool"), twemproxy.pool);
    } else if (twemproxy.enabled && !twemproxy.backends.empty()) {
        QStringList backends;
        for (const NodeAddress& backend : twemproxy.backends)
            backends << backend.text();
        query.addQueryItem(QStringLiteral("backends"), backends.join(QLatin1Char(',')));
    }
    if (twemproxy.enabled && twemproxy.stats.port != 0)
        query.addQueryItem(QStringLiteral("stats"), twemproxy.stats.text());
    if (!followCluster && !twemproxy.enabled)
        query.addQueryItem(QStringLiteral("cluster"), QStringLiteral("0"));
    if (sentinel.enabled())
        return sentinelUrl(*this, query, withPassword);
    if (!user.isEmpty())
        url.setUserName(user);
    if (withPassword && !password.isEmpty())
        url.setPassword(password);
    else if (!user.isEmpty())
        url.setPassword(QLatin1String("")); // "user:@host": a bare "user@host" reads as a password
    url.setQuery(query);
    return url.toString();
}

QString ConnectionOptions::endpoint() const
{
    if (transport == Transport::Unix)
        return socketPath;
    const QString address = sentinel.enabled() && host.isEmpty()
                                ? sentinel.describe()
                                : host + QLatin1Char(':') + QString::number(port);
    return ssh.enabled() ? address + QStringLiteral(" via ssh ") + ssh.destination : address;
}

} // namespace tollgate
