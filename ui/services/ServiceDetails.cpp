#include "ui/services/ServiceDetails.h"

#include "core/registry/ServiceRegistry.h"
#include "ui/common/DisplayText.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringList>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ServiceDetails", text);
}

QString row(const QString& name, const QString& value)
{
    return QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>")
        .arg(name.toHtmlEscaped(),
             value.isEmpty()
                 ? QStringLiteral("\u2014")
                 : value.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
}

} // namespace

QString serviceDetailsHtml(const ServiceInstance& s, const QString& health)
{
    const QLocale locale;
    QStringList addresses;
    if (!s.grpcAddress.isEmpty())
        addresses << tr("gRPC ") + s.grpcAddress;
    if (!s.httpAddress.isEmpty())
        addresses << tr("HTTP ") + s.httpAddress;
    const QString listens = addresses.join(QStringLiteral(", "));
    const QString config = s.configDigest.isEmpty()
                               ? s.configFile
                               : tr("%1 (digest %2)").arg(s.configFile, s.configDigest);
    const QString refusals = s.cachedRefusals == 1
                                 ? tr("1 refusal")
                                 : tr("%1 refusals").arg(locale.toString(s.cachedRefusals));
    const QString cache = tr("%1, %2, %3 hits since start")
                              .arg(refusals, locale.formattedDataSize(s.cacheBytes),
                                   locale.toString(s.cacheHitsTotal));
    const QString decisions =
        tr("%1 per second, %2 since start")
            .arg(locale.toString(s.decisionsPerSecond, 'f', 1), locale.toString(s.decisionsTotal));
    return QStringLiteral("<table>") + row(tr("Instance"), displayId(s.id)) +
           row(tr("Process"), tr("pid %1 on %2, version %3")
                                  .arg(QString::number(s.pid), s.host,
                                       s.version.isEmpty() ? tr("unknown") : s.version)) +
           row(tr("Health"), health) +
           row(tr("Started"), s.startedMs > 0 ? formatTime(s.startedMs) : QString()) +
           row(tr("Listens on"), listens) + row(tr("Config"), config) +
           row(tr("Decisions"), decisions) + row(tr("Cache"), cache) +
           row(tr("Last error"), s.lastError) + QStringLiteral("</table>");
}

} // namespace tollgate::ui
