#pragma once

#include "core/client/NodeClients.h"
#include "core/client/Scan.h"
#include "core/cluster/SlotMap.h"
#include "tollgate/Client.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <map>
#include <memory>

namespace tollgate {

class ClusterRouter;

/// SCAN over a whole Redis Cluster: every primary is scanned with its own cursor, at the same
/// time, and the batches are streamed as they come. Which slots are finished is tracked, so a
/// failover or a slot migration in the middle neither loses keys nor repeats them forever: a
/// node that fails or loses slots is replaced by the new owners of its unfinished slots, which
/// are scanned again (keys of finished slots are filtered out; keys of the unfinished ones that
/// were already delivered may come once more).
///
/// Flow control (Options::batchesOut): batches emitted and not yet release()d, plus SCAN calls
/// out (each may bring one), stay within the bound; the nodes take turns under it.
///
/// Lives on the thread that creates it; batch(), finished() and failed() are emitted there.
/// Destroyed before it is over, it emits failed() (Closed).
class ClusterScan : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        ScanOptions scan;                           // pattern, COUNT, pause; maxKeys unused
        int batchesOut = 0;                         // unreleased batches at most; 0 = no bound
        std::chrono::milliseconds retryDelay{500};  // between topology refreshes after a failure
        std::chrono::milliseconds deadline{60'000}; // give up when failures last this long
    };

    /// `seed`: how to reach any node (user, password, TLS apply to every node); the scan opens
    /// its own connection to each node.
    ClusterScan(ConnectionOptions seed, Options options, QObject* parent = nullptr);
    /// Borrows `router`'s node connections and starts from its slot map (each finished node is
    /// still confirmed by a fresh topology read). Must live on the router's thread and not
    /// outlive it: make the router its parent.
    ClusterScan(ClusterRouter* router, Options options, QObject* parent = nullptr);
    ~ClusterScan() override;

    void start();
    void cancel();
    /// One batch emitted by batch() is dealt with: with Options::batchesOut the scan goes on.
    void release();

    qint64 keysDelivered() const { return m_delivered; }
    /// Nodes scanned so far, including rescans after failures.
    int nodeScans() const { return m_nodeScans; }

Q_SIGNALS:
    void batch(const QList<QByteArray>& keys);
    void finished(qint64 keys);
    void failed(const tollgate::Error& error);

private:
    // One node's scan: the slots it is responsible for, and where its cursor is.
    struct NodeScan
    {
        ClusterNode node;
        std::vector<bool> owned; // slots the node owned, unfinished, when its scan started
        QByteArray cursor = QByteArrayLiteral("0");
        int id = 0;              // tells its replies from those of an earlier scan of the node
        bool calling = false;    // a SCAN call is out
        bool pausing = false;    // ScanOptions::pause between two calls
    };

    ClusterScan(std::unique_ptr<NodeClients> own, NodeClients* nodes, ClusterRouter* router,
                Options options, QObject* parent);
    void refreshTopology();
    void onTopology(const SlotMap& map);
    void retryLater(const Error& why);
    void scanNode(const ClusterNode& node);
    void pump();
    bool withinBudget() const;
    void callScan(NodeScan& scan);
    void onScanReply(const QString& address, int id, const Result<Reply>& reply);
    void resumeAfterPause(const QString& address, int id);
    void fail(const Error& error);
    bool allSlotsDone() const;

    std::unique_ptr<NodeClients> m_ownNodes; // without a router
    NodeClients* m_nodes;
    QPointer<ClusterRouter> m_router;
    Options m_options;
    SlotMap m_map;
    std::vector<bool> m_slotDone;
    // Running scans by node address, and the slots of finished ones waiting for the topology
    // that confirms their node still owns them.
    std::map<QString, NodeScan> m_scanning;
    std::map<QString, std::vector<bool>> m_finishing;
    QString m_lastCalled; // the nodes take turns from the one after it
    QTimer m_retry;
    QElapsedTimer m_failingSince;
    qint64 m_delivered = 0;
    int m_nodeScans = 0;
    int m_callsOut = 0;
    int m_batchesOut = 0;
    bool m_refreshing = false;
    bool m_refreshAgain = false;
    bool m_over = false;
};

/// scanKeysPaced() for a cluster client (batchesOut 0: no bound): a ClusterScan on the client's
/// worker thread through its router, with the same contract (onBatch on that thread, maxKeys and
/// maxCalls honoured, done once).
void scanClusterKeys(Client* client, const ScanOptions& options, int batchesOut,
                     PacedBatchHandler onBatch, Callback<qint64> done);

} // namespace tollgate
