// services: the tollgated instances registered under the prefix (core/registry/ServiceRegistry),
// one line each with its health as of the server's clock.
#include "app/ctl/Command.h"
#include "app/ctl/Output.h"
#include "core/registry/ServiceRegistry.h"

#include <QJsonDocument>

namespace tollgate::ctl {

namespace {

// The payload's own fields (one list of them, ServiceInstance::toJson) plus what the registry adds.
QJsonObject instanceJson(const ServiceInstance& instance, qint64 nowMs)
{
    QJsonObject object = QJsonDocument::fromJson(instance.toJson()).object();
    object.insert(QStringLiteral("id"), text(instance.id));
    object.insert(QStringLiteral("last_seen_ms"), instance.lastSeenMs);
    object.insert(QStringLiteral("health"), serviceHealthName(serviceHealth(instance, nowMs)));
    return object;
}

QString healthText(const ServiceInstance& instance, qint64 nowMs)
{
    switch (serviceHealth(instance, nowMs)) {
    case ServiceHealth::Ready:
        return QStringLiteral("ready");
    case ServiceHealth::NotReady:
        return QStringLiteral("not ready");
    case ServiceHealth::Stale:
        return QStringLiteral("stale: seen %1s ago").arg((nowMs - instance.lastSeenMs) / 1000);
    }
    return {};
}

class ServicesCommand final : public Command
{
public:
    ServicesCommand() : Command(0, 0)
    {
        parser.setApplicationDescription(QStringLiteral(
            "The tollgated instances registered under the prefix, with their health."));
    }

private:
    Result<int> execute() override
    {
        auto list = waitFor<ServiceList>([&](Callback<ServiceList> done) {
            ServiceRegistry(client(), schema()).list(nullptr, done);
        });
        if (!list)
            return list.error();
        for (const QString& reason : list->unreadable)
            warn(reason);
        const qint64 now = list->serverNowMs;
        if (json()) {
            QJsonArray instances;
            for (const ServiceInstance& instance : list->instances)
                instances.append(instanceJson(instance, now));
            QJsonArray unreadable;
            for (const QString& reason : list->unreadable)
                unreadable.append(reason);
            printJson(QJsonObject{{QStringLiteral("server_now_ms"), now},
                                  {QStringLiteral("instances"), instances},
                                  {QStringLiteral("unreadable"), unreadable}});
            return ExitOk;
        }
        if (list->instances.empty()) {
            printLine(QStringLiteral("no tollgated instance is registered under the prefix '%1' "
                                     "(start one with: tollgated --config FILE --url URL)")
                          .arg(QString::fromUtf8(cli().prefix)));
            return ExitOk;
        }
        QList<QStringList> rows{{QStringLiteral("ID"), QStringLiteral("HOST"),
                                 QStringLiteral("HEALTH"), QStringLiteral("DECISIONS/S"),
                                 QStringLiteral("CACHED REFUSALS"), QStringLiteral("CONFIG"),
                                 QStringLiteral("LAST ERROR")}};
        for (const ServiceInstance& instance : list->instances)
            rows << QStringList{text(instance.id),
                                instance.host,
                                healthText(instance, now),
                                QString::number(instance.decisionsPerSecond, 'f', 1),
                                QString::number(instance.cachedRefusals),
                                instance.configDigest,
                                instance.lastError.simplified()}; // one line per instance
        printTable(rows);
        return ExitOk;
    }
};

} // namespace

int servicesCommand(Cli& cli, const QStringList& args)
{
    return runCommand<ServicesCommand>(cli, args);
}

} // namespace tollgate::ctl
