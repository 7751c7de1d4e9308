#include "ui/cluster/ClusterMonitor.h"

#include "core/cluster/Topology.h"
#include "ui/common/Session.h"

namespace tollgate::ui {

namespace {

// The page's own connection to each node: a short deadline, so one hung node delays a sample
// by at most that long and is then shown as unreachable.
ConnectionOptions nodeOptions(ConnectionOptions options)
{
    options.commandTimeout = std::chrono::milliseconds(ClusterMonitor::kNodeDeadlineMs);
    options.connectTimeout = std::chrono::milliseconds(ClusterMonitor::kNodeDeadlineMs);
    options.clientName = QStringLiteral("tollgate-cluster-page");
    return options;
}

} // namespace

ClusterMonitor::ClusterMonitor(Session* session, QObject* parent)
    : QObject(parent), m_session(session),
      m_nodes(std::make_unique<NodeClients>(nodeOptions(session->settings().connection)))
{
    qRegisterMetaType<ClusterSnapshot>();
    const ConnectionOptions& options = session->settings().connection;
    if (options.sentinel.enabled())
        m_sentinels = std::make_unique<NodeClients>(sentinelClientOptions(nodeOptions(options)));
    if (options.twemproxy.enabled) {
        // Straight to each redis-server: INFO is not forwarded by the proxy.
        ConnectionOptions backend = nodeOptions(options);
        backend.twemproxy = {};
        backend.twemproxy.backendOfPool = true;
        m_backends = std::make_unique<NodeClients>(backend);
    }
}

ClusterMonitor::~ClusterMonitor() = default;

bool ClusterMonitor::refresh()
{
    if (m_sampling)
        return false;
    m_sampling = true;
    if (m_sentinels)
        sampleSentinel();
    else if (m_backends)
        samplePool();
    else
        discover(0);
    return true;
}

Client* ClusterMonitor::nodeClient(size_t index)
{
    // 0: the session's own connection; then every node of the last map, so the page still
    // finds the cluster when the node it was given is the one that died.
    if (index == 0)
        return m_session->client();
    const auto& nodes = m_last.map.nodes();
    return index - 1 < nodes.size() ? m_nodes->forNode(nodes[index - 1]) : nullptr;
}

void ClusterMonitor::discover(size_t fallback)
{
    Client* client = nodeClient(fallback);
    discoverTopology(client, this, [this, fallback](Result<std::optional<SlotMap>> map) {
        if (!map) {
            if (nodeClient(fallback + 1))
                discover(fallback + 1);
            else
                finish(map.error());
            return;
        }
        if (*map)
            sampleCluster(std::move(**map));
        else
            sampleStandalone();
    });
}

void ClusterMonitor::sampleCluster(SlotMap map)
{
    auto shared = std::make_shared<SlotMap>(std::move(map));
    sampleNodeStats(
        m_nodes.get(), shared->nodes(), this, [this, shared](Result<ClusterStats> stats) {
            if (!stats) {
                finish(stats.error());
                return;
            }
            finish(ClusterSnapshot{false, *shared, std::move(*stats), std::nullopt, std::nullopt});
        });
}

void ClusterMonitor::sampleStandalone()
{
    Client* client = m_session->client();
    client->execute({QByteArrayLiteral("INFO")}, this,
                    [this, endpoint = client->options().endpoint()](Result<Reply> info) {
                        if (!info) {
                            finish(info.error());
                            return;
                        }
                        ClusterSnapshot snapshot;
                        snapshot.standalone = true;
                        NodeStats node = NodeStats::fromInfo(info->toBytes());
                        node.address = endpoint;
                        snapshot.stats.primariesTotal = node;
                        snapshot.stats.nodes.push_back(node);
                        finish(std::move(snapshot));
                    });
}

void ClusterMonitor::sampleSentinel()
{
    const SentinelOptions& options = m_session->settings().connection.sentinel;
    readSentinelTopology(
        m_sentinels.get(), options, this, [this](Result<SentinelTopology> topology) {
            if (!topology) {
                finish(topology.error());
                return;
            }
            auto shared = std::make_shared<SentinelTopology>(std::move(*topology));
            std::vector<ClusterNode> nodes{
                {{}, shared->primary.host, shared->primary.port, true, false}};
            for (const SentinelTopology::Replica& replica : shared->replicas)
                nodes.push_back({{}, replica.address.host, replica.address.port, false, false});
            sampleNodeStats(m_nodes.get(), nodes, this, [this, shared](Result<ClusterStats> stats) {
                if (!stats) {
                    finish(stats.error());
                    return;
                }
                ClusterSnapshot snapshot;
                snapshot.stats = std::move(*stats);
                snapshot.sentinel = *shared;
                finish(std::move(snapshot));
            });
        });
}

void ClusterMonitor::samplePool()
{
    const ConnectionOptions& options = m_session->settings().connection;
    auto snapshot = std::make_shared<ClusterSnapshot>();
    snapshot->pool = PoolSnapshot{NodeAddress{options.host, options.port},
                                  m_session->state() == ConnectionState::Connected,
                                  options.twemproxy, std::nullopt, QString()};
    std::vector<ClusterNode> nodes;
    for (const NodeAddress& backend : options.twemproxy.backends)
        nodes.push_back({{}, backend.host, backend.port, true, false});
    auto readStats = [this, snapshot] {
        const TwemproxyOptions& pool = snapshot->pool->options;
        if (pool.stats.port == 0) {
            finish(std::move(*snapshot));
            return;
        }
        readTwemproxyStats(pool.stats, pool.pool, kNodeDeadlineMs, this,
                           [this, snapshot](Result<TwemproxyPoolStats> stats) {
                               if (stats)
                                   snapshot->pool->stats = std::move(*stats);
                               else
                                   snapshot->pool->statsError = stats.error().message;
                               finish(std::move(*snapshot));
                           });
    };
    if (nodes.empty()) {
        readStats();
        return;
    }
    sampleNodeStats(m_backends.get(), nodes, this,
                    [this, snapshot, readStats](Result<ClusterStats> stats) {
                        if (!stats) {
                            finish(stats.error());
                            return;
                        }
                        snapshot->stats = std::move(*stats);
                        readStats();
                    });
}

void ClusterMonitor::finish(Result<ClusterSnapshot> snapshot)
{
    m_sampling = false;
    if (!snapshot) {
        Q_EMIT failed(snapshot.error());
        return;
    }
    m_last = std::move(snapshot).value();
    Q_EMIT sampled(m_last);
}

} // namespace tollgate::ui
