#pragma once

#include "core/client/NodeClients.h"
#include "core/cluster/SlotMap.h"
#include "core/redis/CommandBuilder.h"
#include "tollgate/Client.h"

#include <QDeadlineTimer>
#include <QObject>
#include <QTimer>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <set>

namespace tollgate {

/// Sends commands to the Redis Cluster node that owns their keys: one Client (one pipelined
/// connection) per node, a slot map from discoverTopology(), and the cluster's redirections
/// followed as redis-cli -c does:
///  - MOVED: the slot map learns the new owner (and is refreshed in full soon after) and the
///    command goes there, at most kMaxRedirects times;
///  - ASK: ASKING then the command, once, to the node importing the slot; the map is unchanged;
///  - a node busy or between roles (TRYAGAIN, CLUSTERDOWN, LOADING, READONLY after a failover):
///    the topology is refreshed and the command retried with backoff within its deadline
///    (the seed's commandTimeout). These replies guarantee the command did not run.
///  - a connection lost with the command in flight is reported, never retried (the command may
///    have run); the topology is refreshed so the next command finds the new primary.
/// SCRIPT LOAD / EXISTS / FLUSH go to every primary (each node has its own script cache).
/// Keys spanning slots are refused before sending (commandSlot). Replies reach each caller in
/// the order of its commands per slot. A slot no node is known to serve (the topology could not
/// be read, e.g. an ACL user without CLUSTER SHARDS) goes to the seed, and MOVED teaches the
/// map. The topology is read again after MOVED, a lost connection, and every kRefreshInterval.
/// Every request gets its reply exactly once, Closed when the router is destroyed first. Lives
/// on the thread that creates it; call execute() from that thread.
class ClusterRouter : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxRedirects = 5;
    static constexpr std::chrono::milliseconds kRefreshInterval{30'000};

    explicit ClusterRouter(ConnectionOptions seed, QObject* parent = nullptr);
    ~ClusterRouter() override;

    /// Discovers the topology through the seed; commands issued before it is known wait.
    void open();
    void execute(const Command& command, Context context, Callback<Reply> done);
    /// The same for a command already encoded (a prepared hit): decoded once to find its slot.
    void execute(EncodedCommand command, Context context, Callback<Reply> done);

    using EachReply = std::function<void(std::vector<Result<Reply>>)>;
    /// Runs `command` on every primary at once (INFO, SLOWLOG GET, CONFIG GET: node-local
    /// answers); `done` gets one reply per primary, in the order of slots().primaries(), or
    /// the seed's alone while no primary is known. Dropped if the router is destroyed first.
    void executeOnEveryPrimary(EncodedCommand command, EachReply done);

    const SlotMap& slots() const { return m_map; }
    bool isReady() const { return m_ready; }
    /// MOVED and ASK replies followed so far.
    int redirects() const { return m_redirects; }
    /// The connection to each node, for work that runs beside the routing on the router's thread
    /// (ClusterScan): no second set of connections per node.
    NodeClients& nodeClients();

Q_SIGNALS:
    void ready();
    /// The first topology read failed (the seed is no cluster node, unreachable, or the ACL
    /// user may not run CLUSTER SHARDS); commands go to the seed meanwhile.
    void failed(const tollgate::Error& error);

private:
    struct Request;

    void enqueue(EncodedCommand command, std::optional<int> slot, bool everyPrimary,
                 Context context, Callback<Reply> done);
    void sendToEveryPrimary(const std::shared_ptr<Request>& request);
    void dispatch(const std::shared_ptr<Request>& request);
    void finish(const std::shared_ptr<Request>& request, Result<Reply> reply);
    void onReply(const std::shared_ptr<Request>& request, Result<Reply> reply);
    void retryLater(const std::shared_ptr<Request>& request, const Error& error);
    void refreshTopology();

    NodeClients m_nodes;
    SlotMap m_map;
    std::deque<std::function<void()>> m_waiting; // sends held until the topology is known
    std::set<std::shared_ptr<Request>> m_open;      // not answered yet, for the destructor
    QTimer m_refreshTimer;
    bool m_ready = false;
    bool m_refreshing = false;
    int m_redirects = 0;
};

} // namespace tollgate
