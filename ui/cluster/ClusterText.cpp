#include "ui/cluster/ClusterText.h"

#include "ui/common/DisplayText.h"

#include <QLocale>
#include <QObject>

namespace tollgate::ui {

Result<UserLocation> UserLocation::find(const KeySchema& schema, const SlotMap& map,
                                        const QByteArray& user)
{
    const Status valid = KeySchema::validateId(user, QObject::tr("user id"));
    if (!valid)
        return valid.error();
    // The user's own key, so the tag is whatever the schema writes, escaping included.
    const QByteArray key = schema.userBanKey(user);
    UserLocation location;
    location.hashTag = '{' + hashTagOf(key) + '}';
    location.slot = keySlot(key);
    if (const ClusterNode* primary = map.primaryFor(location.slot))
        location.primary = primary->address();
    for (const ClusterNode& replica : map.replicasFor(location.slot))
        location.replicas << replica.address();
    return location;
}

QString UserLocation::where() const
{
    return QObject::tr("hash tag %1 \u00b7 slot %2").arg(displayId(hashTag)).arg(slot);
}

QString UserLocation::text(const QString& standaloneNode) const
{
    const QString where = this->where();
    if (!standaloneNode.isEmpty())
        return QObject::tr("%1 \u00b7 a standalone server keeps every key itself: %2")
            .arg(where, standaloneNode);
    if (primary.isEmpty())
        return QObject::tr("%1 \u00b7 no primary serves this slot right now").arg(where);
    return QObject::tr("%1 \u00b7 primary %2 \u00b7 replicas: %3")
        .arg(where, primary,
             replicas.isEmpty() ? QObject::tr("none") : replicas.join(QStringLiteral(", ")));
}

QString summaryText(const ClusterSnapshot& snapshot, const std::vector<ClusterNodeRow>& rows)
{
    const QLocale locale;
    const NodeStats& total = snapshot.stats.primariesTotal;
    const QString figures =
        QObject::tr("%1 ops/s, %2 used")
            .arg(locale.toString(total.opsPerSec), locale.formattedDataSize(total.usedMemory));
    if (snapshot.standalone)
        return QObject::tr("A standalone Redis server, not a cluster (cluster mode is off): every "
                           "key lives on this one node. %1")
            .arg(figures);
    int primaries = 0;
    int replicas = 0;
    for (const ClusterNodeRow& row : rows) {
        primaries += row.role == QLatin1String("primary") && row.slotCount > 0 ? 1 : 0;
        replicas += row.role == QLatin1String("replica") ? 1 : 0;
    }
    // Slots served, as the primaries that answered see it (the least of their views).
    int served = -1;
    for (const NodeStats& node : snapshot.stats.nodes)
        if (node.primary && !node.clusterState.isEmpty())
            served = served < 0 ? node.clusterSlotsOk : qMin(served, node.clusterSlotsOk);
    const ClusterHealth health = clusterHealth(snapshot.stats);
    const QString state = health == ClusterHealth::Ok     ? QObject::tr("ok")
                          : health == ClusterHealth::Fail ? QObject::tr("fail")
                                                          : QObject::tr("unknown");
    QString text = QObject::tr("Cluster state %1 \u00b7 %2 of %3 slots served \u00b7 %4 "
                               "primaries, %5 replicas \u00b7 on the primaries: %6")
                       .arg(state, served < 0 ? QObject::tr("?") : locale.toString(served),
                            locale.toString(kClusterSlots))
                       .arg(primaries)
                       .arg(replicas)
                       .arg(figures);
    if (snapshot.stats.unreachable > 0)
        text += QObject::tr(" \u00b7 %1")
                    .arg(countText(snapshot.stats.unreachable, QObject::tr("node unreachable"),
                                   QObject::tr("nodes unreachable")));
    return text;
}

} // namespace tollgate::ui
