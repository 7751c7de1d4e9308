#include "ui/connection/ServerText.h"

#include "core/client/Client.h"

#include <QCoreApplication>

namespace tollgate::ui {

QString serverText(const Client& client)
{
    const SentinelOptions& sentinel = client.options().sentinel;
    const QString node = client.node();
    if (!sentinel.enabled() || node == client.options().endpoint())
        return node;
    return QCoreApplication::translate("ServerText", "%1, %2 of '%3' (Sentinel)")
        .arg(node,
             sentinel.replica ? QCoreApplication::translate("ServerText", "a replica")
                              : QCoreApplication::translate("ServerText", "primary"),
             sentinel.masterName);
}

} // namespace tollgate::ui
