#include "app/demo/ClusterJoin.h"

#include "app/demo/DemoServer.h"
#include "app/demo/RawCommand.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QThread>

namespace tollgate {

namespace {

struct Address
{
    QString host;
    quint16 port = 0;
};

Address splitAddress(const QString& address)
{
    const qsizetype colon = address.lastIndexOf(QLatin1Char(':'));
    return {address.left(colon), quint16(address.mid(colon + 1).toUInt())};
}

// The node agrees the cluster is whole, and a replica has its primary's data.
bool nodeReady(const Address& node)
{
    if (!rawCommand(node.host, node.port, "CLUSTER INFO").contains("cluster_state:ok"))
        return false;
    // A replica counts once it has synced (CLUSTER SHARDS says "online" from then on).
    const QByteArray replication = rawCommand(node.host, node.port, "INFO replication");
    return !replication.isEmpty() &&
           (!replication.contains("role:slave") || replication.contains("master_link_status:up"));
}

} // namespace

Status
startCluster(int primaries, int replicasEach,
             const std::function<Result<QString>(int node, const QStringList& args)>& startNode)
{
    QStringList addresses;
    for (int i = 0; i < primaries * (1 + replicasEach); ++i) {
        const Result<QString> address = startNode(i, clusterNodeArguments());
        if (!address)
            return Error{address.error().kind,
                         QStringLiteral("cluster node %1: %2").arg(i).arg(address.error().message)};
        addresses << *address;
    }
    const Status joined = joinCluster(DemoServer::redisServerPath(), addresses, replicasEach);
    if (!joined)
        return joined;
    return waitForCluster(addresses, std::chrono::seconds(30));
}

QStringList clusterNodeArguments(std::chrono::milliseconds nodeTimeout)
{
    return {QStringLiteral("--cluster-enabled"),      QStringLiteral("yes"),
            QStringLiteral("--cluster-config-file"),  QStringLiteral("nodes.conf"),
            QStringLiteral("--cluster-node-timeout"), QString::number(nodeTimeout.count())};
}

QString redisCliPath(const QString& redisServer)
{
    const QString beside = QFileInfo(redisServer).absolutePath() + QStringLiteral("/redis-cli");
    if (!redisServer.isEmpty() && QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("redis-cli"));
}

Status joinCluster(const QString& redisServer, const QStringList& addresses, int replicasEach)
{
    const QString cli = redisCliPath(redisServer);
    if (cli.isEmpty())
        return Error{ErrorKind::NotFound,
                     QStringLiteral("redis-cli not found: install it with "
                                    "`sudo apt install redis-tools` or run scripts/setup.sh")};
    const QStringList args =
        QStringList{QStringLiteral("--cluster"), QStringLiteral("create")} + addresses +
        QStringList{QStringLiteral("--cluster-replicas"), QString::number(replicasEach),
                    QStringLiteral("--cluster-yes")};
    QProcess create;
    create.setProcessChannelMode(QProcess::MergedChannels);
    create.start(cli, args);
    if (!create.waitForFinished(60'000) || create.exitStatus() != QProcess::NormalExit ||
        create.exitCode() != 0)
        return Error{ErrorKind::Io, QStringLiteral("redis-cli --cluster create failed:\n%1")
                                        .arg(QString::fromUtf8(create.readAll()))};
    return Unit{};
}

Status waitForCluster(const QStringList& addresses, std::chrono::milliseconds timeout)
{
    const QDeadlineTimer deadline(timeout);
    while (!deadline.hasExpired()) {
        bool ready = true;
        for (const QString& address : addresses)
            ready = ready && nodeReady(splitAddress(address));
        if (ready)
            return Unit{};
        QThread::msleep(100);
    }
    return Error{ErrorKind::Timeout,
                 QStringLiteral("the cluster did not reach cluster_state:ok "
                                "on every node within %1 s")
                     .arg(std::chrono::duration_cast<std::chrono::seconds>(timeout).count())};
}

} // namespace tollgate
