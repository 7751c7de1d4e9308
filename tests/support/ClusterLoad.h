#pragma once

#include "core/cluster/SlotMap.h"
#include "tests/support/RedisCluster.h"
#include "tollgate/Client.h"

#include <functional>
#include <memory>

namespace tollgate::test {

// What the cluster tests do to a real cluster under load, shared by the plain and the TLS
// failover tests (tst_ClusterClient, tst_ClusterTlsFailover) and the scans (tst_ClusterScan).

// A Client for `url`, opened, once it knows whether it talks to a cluster (10 s at most).
std::unique_ptr<Client> openClient(const QString& url);
// One command through `client`, waited for on the test thread (Timeout after 15 s).
Result<Reply> runCommand(Client* client, const Command& command);

// The slot map as the fixture's first node tells it (an empty map on failure).
SlotMap clusterTopology(RedisCluster& cluster);
// Writes every key ("1") on the primary owning it, over the fixture's plain ports, and waits
// in the same connections until a replica has them (when the primaries have replicas), so a
// failover loses none of them. False (and a warning) when a write failed.
bool writeOnOwners(RedisCluster& cluster, const QList<QByteArray>& keys);

// "<prefix><i>}:x" for the first i whose owner is not node 0, through which the fixture asks
// who owns a key: a key whose primary may be killed.
QByteArray keyAwayFromSeed(RedisCluster& cluster, const QByteArray& prefix);

// SETs `key` every 5 ms through `client` while `during` runs and until writes succeed again;
// true when every write was answered (success or a clean error, none kept past its deadline),
// writes resumed, and a last one landed on the key's owner.
bool writesThrough(RedisCluster& cluster, Client* client, const QByteArray& key,
                   const std::function<void()>& during);
// CLUSTER FAILOVER on the replica of `key`'s primary under writesThrough(); true when the
// writes passed and the replica owns the key now.
bool manualFailoverUnderLoad(RedisCluster& cluster, Client* client, const QByteArray& key);
// `key`'s primary (not node 0: keyAwayFromSeed) killed under writesThrough(); true when the
// writes passed and another node owns the key now.
bool killedPrimaryUnderLoad(RedisCluster& cluster, Client* client, const QByteArray& key);

} // namespace tollgate::test
