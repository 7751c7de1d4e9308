#pragma once

#include "ui/cluster/ClusterNodesModel.h"

#include <QHash>

namespace tollgate::ui {

/// The rows of a Twemproxy pool (snapshot.pool set): the proxy, then each backend as the URL
/// names it, with its own INFO (sampled directly) and what nutcracker's stats say of it in the
/// Proxy column (when it last ejected the backend, its errors and timeouts). A backend that did
/// not answer the page is "unreachable"; one the proxy ejected within the last minute is
/// "failing". `figures`: each backend's INFO by address.
std::vector<ClusterNodeRow> poolRows(const ClusterSnapshot& snapshot,
                                     const QHash<QString, const NodeStats*>& figures);
/// "Twemproxy pool 'tollgate' at host:port · 2 backends, 2 answer · 3 ejections and 12
/// forward errors since nutcracker started · figures"; `bad` is set when the proxy or a
/// backend does not answer, or no backend is known.
QString poolSummaryText(const ClusterSnapshot& snapshot, const std::vector<ClusterNodeRow>& rows,
                        bool* bad);

} // namespace tollgate::ui
