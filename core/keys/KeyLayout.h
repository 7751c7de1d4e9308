#pragma once

#include "tollgate/KeySchema.h"
#include "tollgate/Result.h"

#include <functional>

namespace tollgate {

class Client;

/// The keys of one script call as the server's mode wants them: the one place that decides
/// between the standalone and the Redis Cluster layout (README "Redis Cluster"). On a cluster
/// a script may touch one slot only, so the global audit mirror becomes the call's own audit
/// stream again (the scripts read that as "no mirror") and the policy keys move under "{:}".
class KeyLayout
{
public:
    KeyLayout(KeySchema schema, bool cluster) : m_schema(std::move(schema)), m_cluster(cluster) {}

    /// Runs `call` with the layout of `client`'s server: at once when the mode is known, else
    /// on the client's worker thread once it is, so no command goes out with the wrong keys.
    static void of(Client* client, const KeySchema& schema,
                   std::function<void(const KeyLayout&)> call);

    const KeySchema& schema() const { return m_schema; }
    bool isCluster() const { return m_cluster; }

    /// The global audit key of a call whose own audit stream is `ownStream` (the user's
    /// stream; a policy script's {:} stream): <p>:audit standalone, `ownStream` on a cluster.
    QByteArray auditMirror(const QByteArray& ownStream) const;

    QByteArray policyKey(const QByteArray& action) const;
    QByteArray policyIndexKey() const;
    QByteArray policyHistoryKey(const QByteArray& action) const;
    /// Where policy changes and console notes (AuditLog::record) go: <p>:audit, <p>:{:}:audit.
    QByteArray policyAuditKey() const;
    QByteArray policyPattern() const;
    /// The override index: <p>:overrides, or <p>:{:}:overrides on a cluster (where the
    /// override scripts cannot reach it and OverrideStore keeps it in a second step).
    QByteArray overrideIndexKey() const { return m_schema.overrideIndexKey(m_cluster); }

    /// An audit stream in `key`'s own slot, for delete.lua: the global one standalone; on a
    /// cluster the user's stream, or {:}'s for the policy keys. InvalidInput for a key
    /// without such a stream (no write could then be atomic with its audit entry).
    Result<QByteArray> auditStreamBeside(const QByteArray& key) const;

private:
    KeySchema m_schema;
    bool m_cluster;
};

} // namespace tollgate
