#pragma once

#include "core/client/NodeClients.h"
#include "tollgate/ConnectionOptions.h"

#include <vector>

namespace tollgate {

/// A Sentinel deployment as its sentinels describe it.
struct SentinelTopology
{
    struct Sentinel
    {
        NodeAddress address;
        bool answered = false; // answered SENTINEL MASTER just now
        QString error;         // why not; or, for one only the others list, their flags
    };
    struct Replica
    {
        NodeAddress address;
        QByteArray flags;    // "slave", "s_down,slave,disconnected", ...
        bool linkOk = false; // master-link-status ok
    };

    QString masterName;
    NodeAddress primary;
    QByteArray primaryFlags; // "master", "master,s_down,o_down", ...
    int quorum = 0;
    QString describedBy;             // the sentinel whose view this is
    std::vector<Sentinel> sentinels; // the configured ones, then those they know of
    std::vector<Replica> replicas;
};

/// Asks every configured sentinel SENTINEL MASTER at once (who answers is reachable), then the
/// first that answered SENTINEL REPLICAS and SENTINEL SENTINELS. NotFound when the answering
/// sentinels watch no master of that name, the errors when none answers. `sentinels` holds
/// clients with the sentinels' credentials (sentinelClientOptions()).
void readSentinelTopology(NodeClients* sentinels, const SentinelOptions& options, Context context,
                          Callback<SentinelTopology> done);

/// Options for connections to the sentinels themselves: their credentials, the connection's
/// TLS and deadlines, no Sentinel of their own.
ConnectionOptions sentinelClientOptions(ConnectionOptions options);

} // namespace tollgate
