#include "core/cluster/ClusterScan.h"

#include "core/cluster/ClusterRouter.h"
#include "core/cluster/Topology.h"

namespace tollgate {

ClusterScan::ClusterScan(ConnectionOptions seed, Options options, QObject* parent)
    : ClusterScan(std::make_unique<NodeClients>(std::move(seed)), nullptr, nullptr,
                  std::move(options), parent)
{
}

ClusterScan::ClusterScan(ClusterRouter* router, Options options, QObject* parent)
    : ClusterScan(nullptr, &router->nodeClients(), router, std::move(options), parent)
{
}

ClusterScan::ClusterScan(std::unique_ptr<NodeClients> own, NodeClients* nodes,
                         ClusterRouter* router, Options options, QObject* parent)
    : QObject(parent), m_ownNodes(std::move(own)), m_nodes(nodes ? nodes : m_ownNodes.get()),
      m_router(router), m_options(std::move(options)), m_slotDone(kClusterSlots, false)
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &ClusterScan::refreshTopology);
}

ClusterScan::~ClusterScan()
{
    // Whoever waits for the end hears of it (the client closed under a running scan).
    if (!m_over) {
        m_over = true;
        Q_EMIT failed(Error{ErrorKind::Closed, QStringLiteral("the cluster scan was closed")});
    }
}

void ClusterScan::start()
{
    // The router's map saves a topology read at the start; a stale one costs no key, since
    // each finished node is confirmed by a fresh read (onTopology).
    if (m_router && m_router->isReady() && m_router->slots().coversAllSlots())
        onTopology(m_router->slots());
    else
        refreshTopology();
}

void ClusterScan::cancel()
{
    m_over = true;
    m_retry.stop();
}

void ClusterScan::release()
{
    if (m_batchesOut > 0)
        --m_batchesOut;
    pump();
}

void ClusterScan::refreshTopology()
{
    if (m_over)
        return;
    if (m_refreshing) {
        m_refreshAgain = true;
        return;
    }
    m_refreshing = true;
    // The seed first, then every node seen so far: any live one knows the whole map.
    std::vector<Client*> nodes{m_nodes->seed()};
    for (const ClusterNode& node : m_map.primaries())
        nodes.push_back(m_nodes->forNode(node));
    discoverTopologyFromAny(nodes, this, [this](Result<std::optional<SlotMap>> map) {
        if (m_over)
            return;
        m_refreshing = false;
        if (!map)
            retryLater(map.error());
        else if (!*map) // a standalone server is no cluster to scan
            fail(Error{ErrorKind::InvalidInput,
                       QStringLiteral("%1 is not a cluster node")
                           .arg(m_nodes->seedOptions().endpoint())});
        else
            onTopology(**map);
    });
}

void ClusterScan::onTopology(const SlotMap& map)
{
    m_map = map;
    // A finished scan counts for the slots its node still owns; slots that moved away during
    // it are scanned again on their new owner.
    for (const auto& [address, owned] : m_finishing)
        for (int slot = 0; slot < kClusterSlots; ++slot)
            if (owned[size_t(slot)] && m_map.primaryFor(slot) &&
                m_map.primaryFor(slot)->address() == address)
                m_slotDone[size_t(slot)] = true;
    m_finishing.clear();

    if (!m_map.coversAllSlots()) { // a failover in progress: wait for the new primary
        retryLater(Error{ErrorKind::Busy, QStringLiteral("the cluster has slots without owner")});
        return;
    }
    for (const ClusterNode& primary : m_map.primaries())
        if (!m_scanning.count(primary.address()))
            scanNode(primary);
    if (m_scanning.empty() && allSlotsDone()) {
        m_over = true;
        Q_EMIT finished(m_delivered);
        return;
    }
    if (m_refreshAgain) {
        m_refreshAgain = false;
        refreshTopology();
    }
}

void ClusterScan::scanNode(const ClusterNode& node)
{
    NodeScan scan;
    scan.node = node;
    scan.owned.assign(kClusterSlots, false);
    bool any = false;
    for (int slot = 0; slot < kClusterSlots; ++slot) {
        const ClusterNode* primary = m_map.primaryFor(slot);
        if (!m_slotDone[size_t(slot)] && primary && primary->sameAddress(node))
            scan.owned[size_t(slot)] = any = true;
    }
    if (!any)
        return;
    scan.id = ++m_nodeScans;
    m_scanning[node.address()] = std::move(scan);
    pump();
}

bool ClusterScan::withinBudget() const
{
    // Every call out may bring a batch: they count against the bound as well.
    return m_options.batchesOut <= 0 || m_batchesOut + m_callsOut < m_options.batchesOut;
}

void ClusterScan::pump()
{
    if (m_over || m_scanning.empty())
        return;
    // Round robin from the node after the last one called, so that under a tight bound every
    // node still gets its turn.
    auto it = m_scanning.upper_bound(m_lastCalled);
    for (size_t visited = 0; visited < m_scanning.size() && withinBudget(); ++visited, ++it) {
        if (it == m_scanning.end())
            it = m_scanning.begin();
        if (!it->second.calling && !it->second.pausing) {
            m_lastCalled = it->first;
            callScan(it->second);
        }
    }
}

void ClusterScan::callScan(NodeScan& scan)
{
    scan.calling = true;
    ++m_callsOut;
    const QString address = scan.node.address();
    const int id = scan.id;
    m_nodes->forNode(scan.node)->execute(
        scanCommand(m_options.scan, scan.cursor), this,
        [this, address, id](Result<Reply> reply) { onScanReply(address, id, reply); });
}

void ClusterScan::onScanReply(const QString& address, int id, const Result<Reply>& reply)
{
    --m_callsOut;
    const auto found = m_scanning.find(address);
    if (m_over || found == m_scanning.end() || found->second.id != id)
        return;
    NodeScan& scan = found->second;
    scan.calling = false;
    const Result<ScanPage> page = scanPage(reply);
    if (!page) {
        // The node went away (or lost its slots): its unfinished slots go to whoever owns
        // them once the cluster has settled.
        m_scanning.erase(found);
        retryLater(page.error());
        pump();
        return;
    }
    m_failingSince.invalidate(); // progress: the deadline counts from the next failure
    // Only keys of slots this scan is responsible for: not finished elsewhere, not moved in.
    QList<QByteArray> fresh;
    fresh.reserve(page->keys.size());
    for (const QByteArray& key : page->keys) {
        const int slot = keySlot(key);
        if (scan.owned[size_t(slot)] && !m_slotDone[size_t(slot)])
            fresh << key;
    }
    if (page->cursor == "0") {
        m_finishing[address] = std::move(scan.owned);
        m_scanning.erase(found);
        refreshTopology();
    } else {
        scan.cursor = page->cursor;
        if (m_options.scan.pause.count() > 0) {
            scan.pausing = true;
            QTimer::singleShot(m_options.scan.pause, this,
                               [this, address, id] { resumeAfterPause(address, id); });
        }
    }
    if (!fresh.isEmpty()) {
        m_delivered += fresh.size();
        if (m_options.batchesOut > 0)
            ++m_batchesOut;
        Q_EMIT batch(fresh); // may cancel, or release at once
    }
    pump();
}

void ClusterScan::resumeAfterPause(const QString& address, int id)
{
    const auto found = m_scanning.find(address);
    if (found == m_scanning.end() || found->second.id != id)
        return;
    found->second.pausing = false;
    pump();
}

void ClusterScan::retryLater(const Error& why)
{
    if (m_over)
        return;
    if (!m_failingSince.isValid())
        m_failingSince.start();
    if (m_failingSince.elapsed() > m_options.deadline.count()) {
        fail(Error{why.kind, QStringLiteral("the cluster scan gave up after %1 s: %2")
                                 .arg(m_options.deadline.count() / 1000)
                                 .arg(why.message)});
        return;
    }
    if (!m_retry.isActive())
        m_retry.start(m_options.retryDelay);
}

void ClusterScan::fail(const Error& error)
{
    m_over = true;
    m_retry.stop();
    Q_EMIT failed(error);
}

bool ClusterScan::allSlotsDone() const
{
    return std::all_of(m_slotDone.begin(), m_slotDone.end(), [](bool done) { return done; });
}

} // namespace tollgate
