#pragma once

#include "core/cluster/NodeClients.h"
#include "core/cluster/SlotMap.h"
#include "core/redis/Client.h"
#include "core/redis/Scan.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <map>
#include <memory>

namespace tollgate {

/// SCAN over a whole Redis Cluster: every primary is scanned with its own cursor, at the same
/// time, and the batches are streamed as they come. Which slots are finished is tracked, so a
/// failover or a slot migration in the middle neither loses keys nor repeats them forever: a
/// node that fails or loses slots is replaced by the new owners of its unfinished slots, which
/// are scanned again (keys of finished slots are filtered out; keys of the unfinished ones that
/// were already delivered may come once more).
///
/// Lives on the thread that creates it; batch(), finished() and failed() are emitted there.
class ClusterScan : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        ScanOptions scan;                           // pattern, COUNT, pause; maxKeys unused
        std::chrono::milliseconds retryDelay{500};  // between topology refreshes after a failure
        std::chrono::milliseconds deadline{60'000}; // give up when failures last this long
    };

    /// `seed`: how to reach any node (user, password, TLS apply to every node).
    ClusterScan(ConnectionOptions seed, Options options, QObject* parent = nullptr);
    ~ClusterScan() override;

    void start();
    void cancel();

    qint64 keysDelivered() const { return m_delivered; }
    /// Nodes scanned so far, including rescans after failures.
    int nodeScans() const { return m_nodeScans; }

Q_SIGNALS:
    void batch(const QList<QByteArray>& keys);
    void finished(qint64 keys);
    void failed(const tollgate::Error& error);

private:
    void refreshTopology();
    void onTopology(const SlotMap& map);
    void retryLater(const Error& why);
    void scanNode(const ClusterNode& node);
    void onNodeBatch(const QString& address, const QList<QByteArray>& keys);
    void onNodeDone(const QString& address, const Result<qint64>& result);
    void fail(const Error& error);
    bool allSlotsDone() const;

    NodeClients m_nodes;
    Options m_options;
    SlotMap m_map;
    std::vector<bool> m_slotDone;
    // Slots a node owned when its scan started: running scans, and finished ones waiting for
    // the topology that confirms they still own them.
    std::map<QString, std::vector<bool>> m_scanning;
    std::map<QString, std::vector<bool>> m_finishing;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    QTimer m_retry;
    QElapsedTimer m_failingSince;
    qint64 m_delivered = 0;
    int m_nodeScans = 0;
    bool m_refreshing = false;
    bool m_refreshAgain = false;
    bool m_over = false;
};

/// scanKeys() for a cluster client: a ClusterScan on the client's worker thread, with the same
/// contract (onBatch on that thread, maxKeys and maxCalls honoured, done once).
void scanClusterKeys(Client* client, const ScanOptions& options,
                     std::function<bool(const QList<QByteArray>&)> onBatch,
                     Callback<qint64> done);

} // namespace tollgate
