#include "ui/connection/ServerText.h"

#include "tollgate/Client.h"
#include "ui/common/DisplayText.h"

#include <QCoreApplication>

namespace tollgate::ui {

QString serverText(const Client& client)
{
    const SentinelOptions& sentinel = client.options().sentinel;
    const QString node = client.node();
    const TwemproxyOptions& pool = client.options().twemproxy;
    if (pool.enabled)
        return pool.backends.empty()
                   ? QCoreApplication::translate("ServerText",
                                                 "%1, a Twemproxy pool (backends unknown)")
                         .arg(node)
                   : QCoreApplication::translate("ServerText", "%1, a Twemproxy pool of %2")
                         .arg(node,
                              countText(qint64(pool.backends.size()),
                                        QCoreApplication::translate("ServerText", "backend"),
                                        QCoreApplication::translate("ServerText", "backends")));
    if (!sentinel.enabled() || node == client.options().endpoint())
        return node;
    return QCoreApplication::translate("ServerText", "%1, %2 of '%3' (Sentinel)")
        .arg(node,
             sentinel.replica ? QCoreApplication::translate("ServerText", "a replica")
                              : QCoreApplication::translate("ServerText", "primary"),
             sentinel.masterName);
}

} // namespace tollgate::ui
