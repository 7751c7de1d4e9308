// The Twemproxy parts of a connection URL: redis+twemproxy://[:password@]host:port with
// backends=host:port,... or config=<nutcracker.yml>&pool=<name> (ConnectionOptions.h).
#include "core/client/NutcrackerConfig.h"
#include "tollgate/ConnectionOptions.h"

namespace tollgate {

Status parseTwemproxyBackends(const QString& list, std::vector<NodeAddress>* backends)
{
    for (const QString& item : list.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const qsizetype colon = item.lastIndexOf(QLatin1Char(':'));
        bool ok = false;
        const uint port = colon > 0 ? item.mid(colon + 1).toUInt(&ok) : 0;
        if (!ok || port == 0 || port > 65535)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("backends= takes host:port,... (got '") + item +
                             QStringLiteral("')")};
        backends->push_back(NodeAddress{item.left(colon), quint16(port)});
    }
    return Unit{};
}

Status finishTwemproxyOptions(ConnectionOptions& options)
{
    TwemproxyOptions& pool = options.twemproxy;
    if (!pool.enabled) {
        if (!pool.backends.empty() || !pool.configFile.isEmpty() || !pool.pool.isEmpty() ||
            pool.stats.port != 0)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("backends=, config=, pool= and stats= are for a "
                                        "Twemproxy pool (redis+twemproxy://)")};
        return Unit{};
    }
    // The proxy forwards none of the handshake's commands but AUTH (its redis_auth).
    if (options.database != 0)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("Twemproxy has no databases but 0 (SELECT is not forwarded)")};
    if (!options.user.isEmpty())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("Twemproxy takes a password only (redis_auth), no ACL user")};
    options.clientName.clear();
    options.followCluster = false;
    if (pool.configFile.isEmpty() != pool.pool.isEmpty())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("config= and pool= go together: the nutcracker YAML file "
                                    "and the pool's name in it")};
    if (pool.configFile.isEmpty()) {
        pool.backendNames.clear();
        for (const NodeAddress& backend : pool.backends)
            pool.backendNames << backend.text();
        return Unit{};
    }
    if (!pool.backends.empty())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("give the backends either as backends= or as config=")};
    auto read = readNutcrackerPool(pool.configFile, pool.pool);
    if (!read)
        return read.error();
    if (read->hashTag != QLatin1String("{}"))
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("nutcracker pool ") + pool.pool +
                         (read->hashTag.isEmpty() ? QStringLiteral(" has no hash_tag")
                                                  : QStringLiteral(" has hash_tag \"") +
                                                        read->hashTag + QLatin1Char('"')) +
                         QStringLiteral(": Tollgate needs hash_tag: \"{}\", so that every "
                                        "script's keys are on one backend")};
    pool.backends = read->servers;
    pool.backendNames = read->serverNames;
    pool.hashTag = read->hashTag;
    return Unit{};
}

} // namespace tollgate
