#pragma once

#include "core/client/TwemproxyStats.h"
#include "core/cluster/NodeStats.h"
#include "core/sentinel/SentinelTopology.h"
#include "tollgate/Result.h"

#include <QObject>
#include <QString>
#include <memory>

namespace tollgate {
class Client;
}

namespace tollgate::ui {

class Session;

/// A Twemproxy pool as the console sees it: the proxy the session talks to, the backends the
/// URL names (each sampled directly) and, with stats= in the URL, what nutcracker's stats
/// port says of each backend.
struct PoolSnapshot
{
    NodeAddress proxy;
    bool proxyConnected = false; // the session's own connection to the proxy
    TwemproxyOptions options;
    std::optional<TwemproxyPoolStats> stats; // none without stats= or when it did not answer
    QString statsError;                      // why not, when stats= is given
};

/// One look at the servers behind a session: the slot map and every node's figures, the
/// single node of a standalone server, or a Sentinel deployment's sentinels, primary and
/// replicas.
struct ClusterSnapshot
{
    bool standalone = false;
    SlotMap map;                              // empty for a standalone server
    ClusterStats stats;                       // a standalone server is its one node
    std::optional<SentinelTopology> sentinel; // a Sentinel deployment (standalone false)
    std::optional<PoolSnapshot> pool;         // a Twemproxy pool (standalone false)
};

/// Samples the topology and every node's INFO off the GUI thread. On a Sentinel deployment:
/// readSentinelTopology() through the sentinels, then sampleNodeStats() over the primary and
/// replicas they name. On a Twemproxy pool: each backend directly, then nutcracker's stats
/// port when the URL names it. Otherwise discoverTopology() through
/// the session's client (or, when that node is gone, through any node seen before), then
/// sampleNodeStats() over every node the map names, failed ones included. At most one sample is
/// in flight: a refresh asked for meanwhile is skipped, so a slow node never piles requests up,
/// and every node answers within its client's short deadline or counts as unreachable.
class ClusterMonitor : public QObject
{
    Q_OBJECT
public:
    static constexpr int kNodeDeadlineMs = 2000;

    explicit ClusterMonitor(Session* session, QObject* parent = nullptr);
    ~ClusterMonitor() override;

    /// Starts a sample unless one is running; returns whether it started.
    bool refresh();
    bool isSampling() const { return m_sampling; }
    /// The last snapshot delivered (empty map before the first).
    const ClusterSnapshot& last() const { return m_last; }

Q_SIGNALS:
    void sampled(const tollgate::ui::ClusterSnapshot& snapshot);
    void failed(const tollgate::Error& error);

private:
    void discover(size_t fallback);
    void sampleCluster(SlotMap map);
    void sampleStandalone();
    void sampleSentinel();
    void samplePool();
    void finish(Result<ClusterSnapshot> snapshot);
    Client* nodeClient(size_t index);

    Session* m_session;
    std::unique_ptr<NodeClients> m_nodes;
    std::unique_ptr<NodeClients> m_sentinels; // a Sentinel deployment only
    std::unique_ptr<NodeClients> m_backends;  // a Twemproxy pool's redis-servers only
    ClusterSnapshot m_last;
    bool m_sampling = false;
};

} // namespace tollgate::ui

Q_DECLARE_METATYPE(tollgate::ui::ClusterSnapshot)
