#include "core/cluster/ClusterScan.h"

#include "core/cluster/Topology.h"

namespace tollgate {

ClusterScan::ClusterScan(ConnectionOptions seed, Options options, QObject* parent)
    : QObject(parent), m_nodes(std::move(seed)), m_options(std::move(options)),
      m_slotDone(kClusterSlots, false), m_cancelled(std::make_shared<std::atomic<bool>>(false))
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &ClusterScan::refreshTopology);
}

ClusterScan::~ClusterScan()
{
    m_cancelled->store(true);
}

void ClusterScan::start()
{
    refreshTopology();
}

void ClusterScan::cancel()
{
    m_cancelled->store(true);
    m_over = true;
    m_retry.stop();
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
    std::vector<Client*> nodes{m_nodes.seed()};
    for (const ClusterNode& node : m_map.primaries())
        nodes.push_back(m_nodes.forNode(node));
    discoverTopologyFromAny(nodes, this, [this](Result<std::optional<SlotMap>> map) {
        if (m_over)
            return;
        m_refreshing = false;
        if (!map)
            retryLater(map.error());
        else if (!*map) // a standalone server is no cluster to scan
            fail(Error{
                ErrorKind::InvalidInput,
                QStringLiteral("%1 is not a cluster node").arg(m_nodes.seedOptions().endpoint())});
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
    std::vector<bool> owned(kClusterSlots, false);
    bool any = false;
    for (int slot = 0; slot < kClusterSlots; ++slot) {
        const ClusterNode* primary = m_map.primaryFor(slot);
        if (!m_slotDone[size_t(slot)] && primary && primary->sameAddress(node))
            owned[size_t(slot)] = any = true;
    }
    if (!any)
        return;
    const QString address = node.address();
    m_scanning[address] = std::move(owned);
    ++m_nodeScans;
    const Context self(this); // made here, on our thread; the callbacks run on the worker
    auto cancelled = m_cancelled;
    scanKeys(
        m_nodes.forNode(node), m_options.scan,
        [self, address, cancelled, this](const QList<QByteArray>& keys) {
            self.post([this, address, keys] { onNodeBatch(address, keys); });
            return !cancelled->load();
        },
        [self, address, this](Result<qint64> result) {
            self.post([this, address, result] { onNodeDone(address, result); });
        });
}

void ClusterScan::onNodeBatch(const QString& address, const QList<QByteArray>& keys)
{
    const auto scanning = m_scanning.find(address);
    if (m_over || scanning == m_scanning.end())
        return;
    m_failingSince.invalidate(); // progress: the deadline counts from the next failure
    // Only keys of slots this scan is responsible for: not finished elsewhere, not moved in.
    QList<QByteArray> fresh;
    fresh.reserve(keys.size());
    for (const QByteArray& key : keys) {
        const int slot = keySlot(key);
        if (scanning->second[size_t(slot)] && !m_slotDone[size_t(slot)])
            fresh << key;
    }
    if (fresh.isEmpty())
        return;
    m_delivered += fresh.size();
    Q_EMIT batch(fresh);
}

void ClusterScan::onNodeDone(const QString& address, const Result<qint64>& result)
{
    auto scanning = m_scanning.find(address);
    if (m_over || scanning == m_scanning.end())
        return;
    std::vector<bool> owned = std::move(scanning->second);
    m_scanning.erase(scanning);
    if (result) {
        m_failingSince.invalidate();
        m_finishing[address] = std::move(owned);
        refreshTopology();
        return;
    }
    // The node went away (or lost its slots): its unfinished slots go to whoever owns them
    // once the cluster has settled.
    retryLater(result.error());
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
    m_cancelled->store(true);
    m_retry.stop();
    Q_EMIT failed(error);
}

bool ClusterScan::allSlotsDone() const
{
    return std::all_of(m_slotDone.begin(), m_slotDone.end(), [](bool done) { return done; });
}

void scanClusterKeys(Client* client, const ScanOptions& options,
                     std::function<bool(const QList<QByteArray>&)> onBatch,
                     Callback<qint64> done)
{
    auto start = [seed = client->options(), options, onBatch = std::move(onBatch),
                  done = std::move(done)] {
        ClusterScan::Options clusterOptions;
        clusterOptions.scan = options;
        clusterOptions.scan.maxKeys = 0;
        clusterOptions.scan.maxCalls = 0;
        auto* scan = new ClusterScan(seed, clusterOptions);
        auto seen = std::make_shared<qint64>(0);
        auto calls = std::make_shared<qint64>(0);
        auto finish = [scan, done](Result<qint64> result) {
            scan->cancel();
            scan->deleteLater();
            done(std::move(result));
        };
        QObject::connect(scan, &ClusterScan::batch, scan,
                         [=](const QList<QByteArray>& keys) {
                             QList<QByteArray> taken = keys;
                             if (options.maxKeys > 0 && *seen + taken.size() > options.maxKeys)
                                 taken = taken.mid(0, qsizetype(options.maxKeys - *seen));
                             *seen += taken.size();
                             const bool more = taken.isEmpty() || onBatch(taken);
                             const bool full =
                                 (options.maxKeys > 0 && *seen >= options.maxKeys) ||
                                 (options.maxCalls > 0 && ++*calls >= options.maxCalls);
                             if (!more || full)
                                 finish(*seen);
                         });
        QObject::connect(scan, &ClusterScan::finished, scan, [=] { finish(*seen); });
        QObject::connect(scan, &ClusterScan::failed, scan,
                         [=](const Error& error) { finish(error); });
        scan->start();
    };
    client->runLater(std::chrono::milliseconds(0), std::move(start));
}

} // namespace tollgate
