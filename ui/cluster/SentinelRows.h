#pragma once

#include "ui/cluster/ClusterNodesModel.h"

#include <QHash>

namespace tollgate::ui {

/// The rows of a Sentinel deployment (snapshot.sentinel set): the primary, each replica with
/// its lag, then every sentinel. A server the sentinels flag as down, or a replica whose link
/// to the primary is broken, is "failing"; one that did not answer the page is "unreachable".
/// `figures`: each server's INFO by address, answered or not.
std::vector<ClusterNodeRow> sentinelRows(const ClusterSnapshot& snapshot,
                                         const QHash<QString, const NodeStats*>& figures);
/// "Sentinel: primary of 'main' at host:port · 1 replica · 3 of 3 sentinels answer (quorum 2)
/// · figures"; `bad` is set when the primary is flagged down or fewer sentinels than the
/// quorum answer.
QString sentinelSummaryText(const ClusterSnapshot& snapshot,
                            const std::vector<ClusterNodeRow>& rows, bool* bad);
/// "1.2 kB behind · 1 s", "in sync · 0 s", or a dash when unknown.
QString lagText(const ClusterNodeRow& row);

} // namespace tollgate::ui
