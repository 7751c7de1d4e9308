#pragma once

#include "app/demo/DemoServer.h"

#include <memory>
#include <vector>

namespace tollgate {

/// A private, throw-away Redis Cluster for `tollgate --demo --cluster`: DemoServer nodes
/// (loopback, free ports whose bus port is free too, one temporary directory each), joined with
/// `redis-cli --cluster create`, ready once every node says cluster_state:ok. Stopped and removed
/// by stop() or the destructor; on Linux the kernel also kills the nodes if this process dies.
class DemoCluster
{
public:
    DemoCluster() = default;
    ~DemoCluster() { stop(); }
    DemoCluster(const DemoCluster&) = delete;
    DemoCluster& operator=(const DemoCluster&) = delete;

    /// Starts `primaries` nodes with `replicasEach` replicas each and joins them; blocking,
    /// about 5 s (60 s at most). On failure nothing is left running.
    Status start(int primaries = 3, int replicasEach = 1);
    void stop();

    int size() const { return int(m_nodes.size()); }
    const DemoServer& node(int i) const { return *m_nodes[size_t(i)]; }
    /// "redis://127.0.0.1:<port>" of the first node: any node is a seed.
    QString seedUrl() const;

private:
    std::vector<std::unique_ptr<DemoServer>> m_nodes;
};

} // namespace tollgate
