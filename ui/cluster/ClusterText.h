#pragma once

#include "tollgate/KeySchema.h"
#include "ui/cluster/ClusterNodesModel.h"

#include <QStringList>

namespace tollgate::ui {

/// Where a user's keys live: their hash tag (the escaped id, as KeySchema writes it), its slot
/// and the nodes serving that slot. Computed from the last slot map, no round trip.
struct UserLocation
{
    QByteArray hashTag; // "{alice}", "{a%3Ab}"
    int slot = -1;
    QString primary; // "host:port"; empty while no primary serves the slot
    QStringList replicas;

    /// Bad input (an empty or too long id) is an error naming the limit.
    static Result<UserLocation> find(const KeySchema& schema, const SlotMap& map,
                                     const QByteArray& user);
    /// "hash tag {alice} · slot 1234".
    QString where() const;
    /// One line for the page; on a standalone server every key is on `standaloneNode`.
    QString text(const QString& standaloneNode = {}) const;
};

/// The page's summary line: cluster state, slots served, primaries and replicas, ops/s and
/// memory summed over the primaries, nodes that did not answer. A standalone server says so.
QString summaryText(const ClusterSnapshot& snapshot, const std::vector<ClusterNodeRow>& rows);

} // namespace tollgate::ui
