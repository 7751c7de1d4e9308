#include "tests/support/RedisCluster.h"

#include "app/demo/ClusterJoin.h"

namespace tollgate::test {

QString RedisCluster::redisCliPath()
{
    return tollgate::redisCliPath(RedisServer::redisServerPath());
}

bool RedisCluster::start(int primaries, int replicasEach, const TlsFiles* tls)
{
    stop();
    m_error.clear();
    m_tlsPorts.clear();
    m_caFile = tls ? tls->caCert : QString();
    // The same steps as `tollgate --demo --cluster`, with nodes tests can kill and restart.
    const Status started = startCluster(
        primaries, replicasEach, [this, tls](int, QStringList args) -> Result<QString> {
            if (tls)
                args << tlsArguments(*tls);
            auto node = std::make_unique<RedisServer>();
            if (!node->start(args))
                return Error{ErrorKind::Io, node->errorString()};
            const QString address = node->host() + QLatin1Char(':') + QString::number(node->port());
            m_nodes.push_back(std::move(node));
            return address;
        });
    if (!started) {
        m_error = started.error().message;
        stop();
    }
    return bool(started);
}

QStringList RedisCluster::tlsArguments(const TlsFiles& tls)
{
    // Clients may use TLS; the cluster bus speaks it (Redis 7.0 announces a node's TLS port
    // in CLUSTER SHARDS only then, on its own bus port). The plain port stays for the fixture:
    // redis-cli joins the nodes and the tests inspect them through it.
    m_tlsPorts.push_back(RedisServer::freePort()); // its +10000, the bus, is free too
    return {QStringLiteral("--tls-port"), QString::number(m_tlsPorts.back()),
            QStringLiteral("--tls-cluster"), QStringLiteral("yes"),
            QStringLiteral("--tls-replication"), QStringLiteral("yes"),
            QStringLiteral("--tls-cert-file"), tls.serverCert,
            QStringLiteral("--tls-key-file"), tls.serverKey,
            // a node dialling another's bus is a TLS client: the client certificate, whose
            // extended key usage says so (the server's says serverAuth only)
            QStringLiteral("--tls-client-cert-file"), tls.clientCert,
            QStringLiteral("--tls-client-key-file"), tls.clientKey,
            QStringLiteral("--tls-ca-cert-file"), tls.caCert,
            QStringLiteral("--tls-auth-clients"), QStringLiteral("optional")};
}

void RedisCluster::stop()
{
    for (auto& node : m_nodes)
        node->stop();
    m_nodes.clear();
}

QString RedisCluster::seedUrl() const
{
    return m_nodes.empty() ? QString() : m_nodes.front()->url();
}

QString RedisCluster::tlsSeedUrl() const
{
    if (m_tlsPorts.empty())
        return {};
    return QStringLiteral("rediss://127.0.0.1:%1?ca=%2").arg(m_tlsPorts.front()).arg(m_caFile);
}

int RedisCluster::nodeOfKey(const QByteArray& key)
{
    // Only the owner answers a read of the key; every other node answers -MOVED.
    for (int i = 0; i < size(); ++i) {
        const QByteArray reply = node(i).command({"EXISTS", key});
        if (reply.startsWith(':'))
            return i;
    }
    return -1;
}

} // namespace tollgate::test
