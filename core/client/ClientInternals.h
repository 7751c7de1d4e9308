#pragma once

// What core's own layers use of a Client beyond its installed API: commands already encoded,
// the transport under it, its cluster router and its Twemproxy pool. Their types live in core,
// so they stay out of include/tollgate/Client.h.
#include "core/redis/CommandBuilder.h"
#include "tollgate/Client.h"

namespace tollgate {

class ClientInternals
{
public:
    /// Client::execute() for a command already encoded (CommandBuilder), e.g. a prepared hit.
    static void execute(Client& client, EncodedCommand command, Context context,
                        Callback<Reply> done)
    {
        client.executeEncoded(std::move(command), std::move(context), std::move(done));
    }

    /// Client::executeBatch() for commands already encoded back to back (PipelineBuilder): one
    /// write, one callback for all the replies, and no allocation per command on the way there
    /// or back. On a cluster each command still goes to the node of its key.
    static void executePipeline(Client& client, EncodedPipeline pipeline, Context context,
                                std::function<void(std::vector<Result<Reply>>)> done)
    {
        client.executePipeline(std::move(pipeline), std::move(context), std::move(done));
    }

    /// The event loop of the client's worker thread, and what its own connection (the seed's
    /// on a cluster) reads and writes through now: what the switches of TransportSwitches gave.
    static EventLoop eventLoop(const Client& client) { return client.eventLoop(); }
    static SocketKind socketKind(const Client& client) { return client.socketKind(); }

    /// The router of a cluster client, for cluster-wide work that should share its slot map and
    /// node connections (scanKeys' ClusterScan); null on a single server or once closing.
    /// Worker thread only: the router lives and dies there.
    static ClusterRouter* clusterRouter(const Client& client) { return client.clusterRouter(); }

    /// Through Twemproxy: the pool's backends, one client each (empty when the URL names
    /// none); null otherwise. Whole-server work (SCAN, INFO, ACL checks) goes to them.
    static TwemproxyBackends* twemproxyBackends(const Client& client)
    {
        return client.m_backends.get();
    }
};

} // namespace tollgate
