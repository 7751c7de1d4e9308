#include "app/demo/DemoCluster.h"

#include "app/demo/ClusterJoin.h"

namespace tollgate {

Status DemoCluster::start(int primaries, int replicasEach)
{
    stop();
    const Status started = startCluster(
        primaries, replicasEach, [this](int, const QStringList& args) -> Result<QString> {
            auto node = std::make_unique<DemoServer>();
            const Status up = node->start(args);
            if (!up)
                return up.error();
            const QString address = QStringLiteral("127.0.0.1:%1").arg(node->port());
            m_nodes.push_back(std::move(node));
            return address;
        });
    if (!started)
        stop();
    return started;
}

void DemoCluster::stop()
{
    m_nodes.clear(); // each node stops and removes its directory
}

QString DemoCluster::seedUrl() const
{
    return m_nodes.empty() ? QString() : m_nodes.front()->url();
}

} // namespace tollgate
