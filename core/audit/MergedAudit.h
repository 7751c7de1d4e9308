#pragma once

#include "tollgate/AuditLog.h"

namespace tollgate {

/// The global audit view where no script can mirror users' changes into one stream (a Redis
/// Cluster, README "Audit on a Redis Cluster"): SCAN <p>:{*}:audit TYPE stream (every user's
/// stream and the {:} stream of policy changes), the newest entries of each read with a
/// pipelined XREVRANGE bounded by the oldest entry kept so far, merged newest first by stream
/// id (time-ordered), `count` at most, only those after `afterId` when it is given (a live
/// view's newest). All of it on the client's worker thread; the result is delivered on
/// context's thread.
void latestMergedAudit(Client* client, const KeySchema& schema, int count,
                       const QByteArray& afterId, Context context,
                       Callback<std::vector<AuditEntry>> done);

} // namespace tollgate
