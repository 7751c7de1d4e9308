#include "tests/support/RedisCluster.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QThread>

namespace tollgate::test {

QString RedisCluster::redisCliPath()
{
    const QString server = RedisServer::redisServerPath();
    const QString beside = QFileInfo(server).absolutePath() + QStringLiteral("/redis-cli");
    if (!server.isEmpty() && QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("redis-cli"));
}

bool RedisCluster::start(int primaries, int replicasEach)
{
    stop();
    m_error.clear();
    const int total = primaries * (1 + replicasEach);
    for (int i = 0; i < total; ++i) {
        auto node = std::make_unique<RedisServer>();
        // A short node timeout keeps failover tests quick; no persistence of the node table
        // beyond the node's own temporary directory.
        if (!node->start({QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                          QStringLiteral("--cluster-config-file"), QStringLiteral("nodes.conf"),
                          QStringLiteral("--cluster-node-timeout"), QStringLiteral("2000")})) {
            m_error = QStringLiteral("node %1: %2").arg(i).arg(node->errorString());
            stop();
            return false;
        }
        m_nodes.push_back(std::move(node));
    }
    if (!create(replicasEach) || !waitUntilOk()) {
        stop();
        return false;
    }
    return true;
}

bool RedisCluster::create(int replicasEach)
{
    const QString cli = redisCliPath();
    if (cli.isEmpty()) {
        m_error = QStringLiteral("redis-cli not found: run scripts/setup.sh");
        return false;
    }
    QStringList args{QStringLiteral("--cluster"), QStringLiteral("create")};
    for (const auto& node : m_nodes)
        args << node->host() + QLatin1Char(':') + QString::number(node->port());
    args << QStringLiteral("--cluster-replicas") << QString::number(replicasEach)
         << QStringLiteral("--cluster-yes");
    QProcess create;
    create.setProcessChannelMode(QProcess::MergedChannels);
    create.start(cli, args);
    if (!create.waitForFinished(60'000) || create.exitCode() != 0) {
        m_error = QStringLiteral("redis-cli --cluster create failed:\n") +
                  QString::fromUtf8(create.readAll());
        return false;
    }
    return true;
}

bool RedisCluster::waitUntilOk()
{
    QDeadlineTimer deadline(30'000);
    while (!deadline.hasExpired()) {
        bool ok = true;
        for (const auto& node : m_nodes) {
            ok = ok && node->command({"CLUSTER", "INFO"}).contains("cluster_state:ok");
            // a replica counts once it has synced (CLUSTER SHARDS says "online" from then on)
            const QByteArray replication = node->command({"INFO", "replication"});
            ok = ok && (!replication.contains("role:slave") ||
                        replication.contains("master_link_status:up"));
        }
        if (ok)
            return true;
        QThread::msleep(100);
    }
    m_error = QStringLiteral("the cluster did not reach cluster_state:ok within 30 s");
    return false;
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
