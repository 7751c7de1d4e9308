#pragma once

#include "tests/support/RedisServer.h"
#include "tests/support/TlsCertificates.h"

#include <memory>
#include <vector>

namespace tollgate::test {

// A private Redis Cluster on loopback for one test: `primaries` RedisServer nodes (free ports
// whose cluster bus, port + 10000, is free too), each with `replicasEach` replicas, joined with
// `redis-cli --cluster create` and ready once every node says cluster_state:ok. Every node is
// stopped by the destructor, like a single RedisServer.
class RedisCluster
{
public:
    RedisCluster() = default;
    RedisCluster(const RedisCluster&) = delete;
    RedisCluster& operator=(const RedisCluster&) = delete;

    // Starts and joins the nodes; waits (30 s at most) until the cluster is ok everywhere and
    // every replica has synced with its primary.
    // With `tls`, every node also serves clients on a TLS port, and the cluster bus uses TLS.
    bool start(int primaries = 3, int replicasEach = 0, const TlsFiles* tls = nullptr);
    void stop();

    int size() const { return int(m_nodes.size()); }
    RedisServer& node(int i) { return *m_nodes[size_t(i)]; }
    // "redis://127.0.0.1:<port>" of the first node: a seed, as a user would give it.
    QString seedUrl() const;
    // "rediss://127.0.0.1:<TLS port>?ca=..." of the first node, after a start with TLS.
    QString tlsSeedUrl() const;
    // The node serving `key` right now (asks CLUSTER KEYSLOT and CLUSTER SHARDS through node 0),
    // or -1.
    int nodeOfKey(const QByteArray& key);
    QString errorString() const { return m_error; }

    // redis-cli next to redis-server; empty when not installed.
    static QString redisCliPath();

private:
    QStringList tlsArguments(const TlsFiles& tls);

    std::vector<std::unique_ptr<RedisServer>> m_nodes;
    std::vector<quint16> m_tlsPorts; // by node, after a start with TLS
    QString m_caFile;
    QString m_error;
};

} // namespace tollgate::test
