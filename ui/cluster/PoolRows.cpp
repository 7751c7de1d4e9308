#include "ui/cluster/PoolRows.h"

#include "ui/cluster/ClusterMonitor.h"
#include "ui/common/DisplayText.h"

#include <QDateTime>
#include <QLocale>
#include <QObject>

namespace tollgate::ui {

namespace {

// An ejection this recent means the proxy is still sending the backend's keys elsewhere, or
// has only just taken it back (nutcracker's server_retry_timeout is seconds, not minutes).
constexpr qint64 kRecentEjectionMs = 60'000;

QString proxyView(const TwemproxyServerStats& server, qint64 nowMs)
{
    const QLocale locale;
    QStringList parts;
    if (server.ejectedAt > 0) {
        const QDateTime at = QDateTime::fromMSecsSinceEpoch(server.ejectedAt / 1000);
        const qint64 ago = std::max<qint64>(0, (nowMs - at.toMSecsSinceEpoch()) / 1000);
        parts << QObject::tr("ejected at %1 (%2 s ago)")
                     .arg(at.toString(QStringLiteral("HH:mm:ss")))
                     .arg(ago);
    } else {
        parts << QObject::tr("never ejected");
    }
    parts << countText(server.errors, QObject::tr("error"), QObject::tr("errors"))
          << countText(server.timeouts, QObject::tr("timeout"), QObject::tr("timeouts"));
    return parts.join(QStringLiteral(" \u00b7 "));
}

// The pool's name: as nutcracker's stats say it, else as the URL gave it.
QString poolName(const PoolSnapshot& pool)
{
    return pool.stats ? pool.stats->pool : pool.options.pool;
}

// "3 ejections<joiner>12 forward errors": what the proxy counted since it started.
QString ejectionsAndErrors(const TwemproxyPoolStats& stats, const QString& joiner)
{
    return countText(stats.ejections, QObject::tr("ejection"), QObject::tr("ejections")) + joiner +
           countText(stats.forwardErrors, QObject::tr("forward error"),
                     QObject::tr("forward errors"));
}

ClusterNodeRow proxyRow(const PoolSnapshot& pool)
{
    ClusterNodeRow row;
    row.address = pool.proxy.text();
    row.role = QStringLiteral("proxy");
    row.id = poolName(pool).toUtf8();
    if (!pool.proxyConnected) {
        row.link = NodeLink::Unreachable;
        row.linkDetail = QObject::tr("the console's connection to the proxy is down");
    }
    if (pool.stats) {
        row.proxyView = QObject::tr("nutcracker %1 \u00b7 up %2 s \u00b7 %3 \u00b7 %4")
                            .arg(pool.stats->version)
                            .arg(pool.stats->uptimeSeconds)
                            .arg(countText(pool.stats->clientConnections, QObject::tr("client"),
                                           QObject::tr("clients")),
                                 ejectionsAndErrors(*pool.stats, QStringLiteral(" \u00b7 ")));
    } else {
        row.proxyView = pool.options.stats.port == 0
                            ? QObject::tr("add stats=host:port to the URL for the proxy's view")
                            : QObject::tr("stats: %1").arg(pool.statsError);
    }
    return row;
}

} // namespace

std::vector<ClusterNodeRow> poolRows(const ClusterSnapshot& snapshot,
                                     const QHash<QString, const NodeStats*>& figures)
{
    const PoolSnapshot& pool = *snapshot.pool;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    std::vector<ClusterNodeRow> rows{proxyRow(pool)};
    const auto& backends = pool.options.backends;
    for (size_t i = 0; i < backends.size(); ++i) {
        ClusterNodeRow row;
        row.address = backends[i].text();
        row.role = QStringLiteral("backend");
        const QString name = pool.options.backendNames.value(qsizetype(i), row.address);
        row.id = name.toUtf8();
        takeFigures(row, figures);
        const TwemproxyServerStats* seen = pool.stats ? pool.stats->server(name) : nullptr;
        if (seen) {
            row.proxyView = proxyView(*seen, now);
            if (row.link == NodeLink::Connected && seen->ejectedAt > 0 &&
                now - seen->ejectedAt / 1000 < kRecentEjectionMs) {
                row.link = NodeLink::Failing;
                row.linkDetail = QObject::tr("the proxy ejected it less than a minute ago");
            }
        } else if (pool.stats) {
            row.proxyView = QObject::tr("the stats name no backend %1: give config= so the "
                                        "names are known")
                                .arg(name);
        }
        rows.push_back(row);
    }
    return rows;
}

QString poolSummaryText(const ClusterSnapshot& snapshot, const std::vector<ClusterNodeRow>& rows,
                        bool* bad)
{
    const PoolSnapshot& pool = *snapshot.pool;
    int backends = 0;
    int answering = 0;
    for (const ClusterNodeRow& row : rows) {
        if (row.role != QLatin1String("backend"))
            continue;
        ++backends;
        answering += row.link != NodeLink::Unreachable ? 1 : 0;
    }
    *bad = !pool.proxyConnected || backends == 0 || answering < backends;
    const QString name = poolName(pool);
    const QString title =
        name.isEmpty() ? QObject::tr("Twemproxy pool at %1").arg(pool.proxy.text())
                       : QObject::tr("Twemproxy pool '%1' at %2").arg(name, pool.proxy.text());
    if (backends == 0)
        return QObject::tr("%1 \u00b7 its backends are unknown: add backends=host:port,... or "
                           "config=<nutcracker.yml>&pool=<name> to the URL to see them")
            .arg(title);
    const QLocale locale;
    const NodeStats& total = snapshot.stats.primariesTotal;
    QString text =
        QObject::tr("%1 \u00b7 %2 of %3 backends answer").arg(title).arg(answering).arg(backends);
    if (pool.stats)
        text += QObject::tr(" \u00b7 %1 since nutcracker started")
                    .arg(ejectionsAndErrors(*pool.stats, QObject::tr(" and ")));
    return text +
           QObject::tr(" \u00b7 %1 ops/s, %2 used")
               .arg(locale.toString(total.opsPerSec), locale.formattedDataSize(total.usedMemory));
}

} // namespace tollgate::ui
