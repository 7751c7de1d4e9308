#include "tests/support/RedisCluster.h"

#include "core/demo/ClusterJoin.h"

namespace tollgate::test {

QString RedisCluster::redisCliPath()
{
    return tollgate::redisCliPath(RedisServer::redisServerPath());
}

bool RedisCluster::start(int primaries, int replicasEach)
{
    stop();
    m_error.clear();
    // The same steps as `tollgate --demo --cluster`, with nodes tests can kill and restart.
    const Status started = startCluster(
        primaries, replicasEach, [this](int, const QStringList& args) -> Result<QString> {
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
