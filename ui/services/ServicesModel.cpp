#include "ui/services/ServicesModel.h"

#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"

#include <QLocale>
#include <QPalette>
#include <algorithm>

namespace tollgate::ui {

namespace {

const QString kNone = QStringLiteral("\u2014");

QString orNone(const QString& text)
{
    return text.isEmpty() ? kNone : text;
}

} // namespace

void ServicesModel::setList(ServiceList list)
{
    const bool sameRows =
        std::equal(list.instances.begin(), list.instances.end(), m_list.instances.begin(),
                   m_list.instances.end(),
                   [](const ServiceInstance& a, const ServiceInstance& b) { return a.id == b.id; });
    if (!sameRows)
        beginResetModel();
    m_list = std::move(list);
    if (!sameRows)
        endResetModel();
    else if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString ServicesModel::healthText(const ServiceInstance& instance) const
{
    switch (serviceHealth(instance, m_list.serverNowMs)) {
    case ServiceHealth::Ready:
        return tr("ready");
    case ServiceHealth::NotReady:
        return tr("not ready");
    case ServiceHealth::Stale:
        return tr("stale: last seen %1 s ago")
            .arg(QLocale().toString((m_list.serverNowMs - instance.lastSeenMs) / 1000));
    }
    return {};
}

int ServicesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_list.instances.size());
}

int ServicesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ServicesModel::display(const ServiceInstance& instance, int column) const
{
    const QLocale locale;
    switch (Column(column)) {
    case HostColumn:
        return instance.host;
    case IdColumn:
        return boundedDisplayId(instance.id);
    case HealthColumn:
        return healthText(instance);
    case DecisionsColumn:
        return locale.toString(instance.decisionsPerSecond, 'f', 1);
    case CacheEntriesColumn:
        return locale.toString(instance.cachedRefusals);
    case CacheSizeColumn:
        return locale.formattedDataSize(instance.cacheBytes);
    case CacheHitsColumn:
        return locale.toString(instance.cacheHitsTotal);
    case GrpcColumn:
        return orNone(instance.grpcAddress);
    case HttpColumn:
        return orNone(instance.httpAddress);
    case ConfigDigestColumn:
        return orNone(instance.configDigest);
    case ConfigFileColumn:
        return orNone(instance.configFile);
    case StartedColumn:
        return instance.startedMs > 0 ? formatTime(instance.startedMs) : kNone;
    case LastSeenColumn:
        return tr("%1 s ago")
            .arg(locale.toString(qMax<qint64>(0, m_list.serverNowMs - instance.lastSeenMs) / 1000));
    case LastErrorColumn:
        return instance.lastError.simplified(); // one line; the tooltip has it whole
    case ColumnCount:
        break;
    }
    return {};
}

QVariant ServicesModel::toolTip(const ServiceInstance& instance, int column) const
{
    switch (Column(column)) {
    case IdColumn:
        return tr("%1, pid %2, version %3")
            .arg(displayId(instance.id))
            .arg(instance.pid)
            .arg(orNone(instance.version));
    case HealthColumn:
        return tr("An instance announces itself every few seconds; one not seen for %1 s is "
                  "stale: it stopped without withdrawing, or cannot reach Redis.")
            .arg(ServiceInstance::kStaleMs / 1000);
    case LastSeenColumn:
        return formatTime(instance.lastSeenMs);
    case ConfigDigestColumn:
        return tr("The first 12 hex digits of the SHA-256 of the configuration it applied: "
                  "instances that show the same run the same configuration");
    case ConfigFileColumn:
        return instance.configFile;
    case LastErrorColumn:
        return instance.lastError;
    default:
        return {};
    }
}

QVariant ServicesModel::foreground(const ServiceInstance& instance, int column) const
{
    const ServiceHealth health = serviceHealth(instance, m_list.serverNowMs);
    if (health == ServiceHealth::Stale)
        return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
    if (column == HealthColumn)
        return toneColor(health == ServiceHealth::Ready ? Tone::Ok : Tone::Warn);
    if (column == LastErrorColumn && !instance.lastError.isEmpty())
        return toneColor(Tone::Denied);
    return {};
}

QVariant ServicesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const ServiceInstance& instance = m_list.instances[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return display(instance, index.column());
    case Qt::ToolTipRole:
        return toolTip(instance, index.column());
    case Qt::ForegroundRole:
        return foreground(instance, index.column());
    case Qt::TextAlignmentRole:
        if (index.column() == DecisionsColumn ||
            (index.column() >= CacheEntriesColumn && index.column() <= CacheHitsColumn))
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QVariant ServicesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case HostColumn:
        return tr("Host");
    case IdColumn:
        return tr("Instance");
    case HealthColumn:
        return tr("Health");
    case DecisionsColumn:
        return tr("Decisions/s");
    case CacheEntriesColumn:
        return tr("Cached refusals");
    case CacheSizeColumn:
        return tr("Cache size");
    case CacheHitsColumn:
        return tr("Cache hits");
    case GrpcColumn:
        return tr("gRPC");
    case HttpColumn:
        return tr("HTTP");
    case ConfigDigestColumn:
        return tr("Config digest");
    case ConfigFileColumn:
        return tr("Config file");
    case StartedColumn:
        return tr("Started");
    case LastSeenColumn:
        return tr("Last seen");
    case LastErrorColumn:
        return tr("Last error");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
