#include "ui/cluster/SentinelRows.h"

#include "ui/common/DisplayText.h"

#include <QHash>
#include <QLocale>
#include <QObject>
#include <algorithm>

namespace tollgate::ui {

namespace {

ClusterNodeRow serverRow(const NodeAddress& address, const QString& role, const QByteArray& flags,
                         const QHash<QString, const NodeStats*>& figures)
{
    ClusterNodeRow row;
    row.address = address.text();
    row.role = role;
    if (takeFigures(row, figures) && (flags.contains("down") || flags.contains("disconnected"))) {
        row.link = NodeLink::Failing;
        row.linkDetail = QObject::tr("the sentinels flag it %1").arg(QString::fromUtf8(flags));
    }
    return row;
}

} // namespace

std::vector<ClusterNodeRow> sentinelRows(const ClusterSnapshot& snapshot,
                                         const QHash<QString, const NodeStats*>& figures)
{
    const SentinelTopology& topology = *snapshot.sentinel;
    std::vector<ClusterNodeRow> rows;
    rows.push_back(
        serverRow(topology.primary, QStringLiteral("primary"), topology.primaryFlags, figures));
    const qint64 primaryOffset = rows.front().stats.replicationOffset;
    for (const SentinelTopology::Replica& replica : topology.replicas) {
        ClusterNodeRow row =
            serverRow(replica.address, QStringLiteral("replica"), replica.flags, figures);
        row.primary = topology.primary.text();
        if (row.link == NodeLink::Connected && !replica.linkOk) {
            row.link = NodeLink::Failing;
            row.linkDetail = QObject::tr("its link to the primary is down");
        }
        if (primaryOffset >= 0 && row.stats.replicationOffset >= 0)
            row.lagBytes = std::max<qint64>(0, primaryOffset - row.stats.replicationOffset);
        row.lagSeconds = row.stats.lastIoSecondsAgo;
        rows.push_back(row);
    }
    for (const SentinelTopology::Sentinel& sentinel : topology.sentinels) {
        ClusterNodeRow row;
        row.address = sentinel.address.text();
        row.role = QStringLiteral("sentinel");
        if (!sentinel.answered) {
            row.link = NodeLink::Unreachable;
            row.linkDetail = sentinel.error;
        }
        rows.push_back(row);
    }
    return rows;
}

QString sentinelSummaryText(const ClusterSnapshot& snapshot,
                            const std::vector<ClusterNodeRow>& rows, bool* bad)
{
    const SentinelTopology& topology = *snapshot.sentinel;
    int replicas = 0;
    int sentinels = 0;
    int answering = 0;
    for (const ClusterNodeRow& row : rows) {
        replicas += row.role == QLatin1String("replica") ? 1 : 0;
        if (row.role == QLatin1String("sentinel")) {
            ++sentinels;
            answering += row.link == NodeLink::Connected ? 1 : 0;
        }
    }
    *bad = topology.primaryFlags.contains("down") || answering < topology.quorum;
    const QLocale locale;
    const NodeStats& total = snapshot.stats.primariesTotal;
    return QObject::tr("Sentinel: primary of '%1' at %2 \u00b7 %3 \u00b7 %4 of %5 "
                       "sentinels answer (quorum %6) \u00b7 %7 ops/s, %8 used")
        .arg(topology.masterName, topology.primary.text(),
             countText(replicas, QObject::tr("replica"), QObject::tr("replicas")))
        .arg(answering)
        .arg(sentinels)
        .arg(topology.quorum)
        .arg(locale.toString(total.opsPerSec), locale.formattedDataSize(total.usedMemory));
}

QString lagText(const ClusterNodeRow& row)
{
    if (row.lagBytes < 0)
        return QStringLiteral("\u2014");
    const QString bytes =
        row.lagBytes == 0 ? QObject::tr("in sync")
                          : QObject::tr("%1 behind").arg(QLocale().formattedDataSize(row.lagBytes));
    return row.lagSeconds < 0 ? bytes
                              : QObject::tr("%1 \u00b7 %2 s").arg(bytes).arg(row.lagSeconds);
}

} // namespace tollgate::ui
