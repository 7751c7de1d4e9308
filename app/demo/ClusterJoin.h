#pragma once

#include "tollgate/Result.h"

#include <QString>
#include <QStringList>
#include <chrono>
#include <functional>

namespace tollgate {

/// The steps that turn loose redis-server processes into a Redis Cluster, shared by
/// `tollgate --demo --cluster` (DemoCluster) and the tests' fixture (tests/support/RedisCluster),
/// which start their nodes differently. All of them block: for set-up before a window or a test
/// runs, never on a GUI thread that is already showing.

/// Starts a whole cluster: `startNode(i, clusterNodeArguments())` starts node i (the caller
/// owns the process) and returns its "host:port" or why it could not, for
/// primaries * (1 + replicasEach) nodes; then joinCluster() and waitForCluster() (30 s). On
/// failure the caller stops the nodes it started.
Status
startCluster(int primaries, int replicasEach,
             const std::function<Result<QString>(int node, const QStringList& args)>& startNode);

/// redis-server arguments of a cluster node: its node table in its own working directory, and
/// a short node timeout so a killed node is declared failed (and replaced) within seconds.
QStringList clusterNodeArguments(std::chrono::milliseconds nodeTimeout = std::chrono::seconds(2));

/// redis-cli beside `redisServer`, else on PATH; empty when not installed.
QString redisCliPath(const QString& redisServer);

/// `redis-cli --cluster create <addresses> --cluster-replicas N --cluster-yes`: the first
/// addresses become primaries, the others their replicas. 60 s at most; the error quotes
/// redis-cli's output.
Status joinCluster(const QString& redisServer, const QStringList& addresses, int replicasEach);

/// Waits until every node at `addresses` ("host:port", plain TCP, no password) says
/// cluster_state:ok and every replica has synced with its primary.
Status waitForCluster(const QStringList& addresses, std::chrono::milliseconds timeout);

} // namespace tollgate
