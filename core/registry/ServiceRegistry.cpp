#include "core/registry/ServiceRegistry.h"

#include "core/scripts/ScriptRunner.h"

#include <QHash>
#include <algorithm>

namespace tollgate {

namespace {

Status validateId(const QByteArray& id)
{
    if (id.isEmpty() || id.size() > ServiceRegistry::kMaxIdBytes)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("a service instance id must be 1 to %1 bytes, not %2")
                         .arg(ServiceRegistry::kMaxIdBytes)
                         .arg(id.size())};
    return Unit{};
}

// The registry as the three replies give it: the hash's payloads joined with the zset's
// scores, every entry either shown or named in `unreadable`.
ServiceList joined(const KeySchema& schema, const Reply& payloads, const Reply& scores,
                   qint64 nowMs)
{
    ServiceList list;
    list.serverNowMs = nowMs;
    QHash<QByteArray, qint64> seen;
    for (const auto& [id, score] : scores.toPairs())
        seen.insert(id, qint64(score.toDouble()));
    for (const auto& [id, json] : payloads.toPairs()) {
        const auto score = seen.constFind(id);
        if (score == seen.constEnd()) {
            list.unreadable.push_back(
                QStringLiteral("service %1: no last-seen time in %2")
                    .arg(QString::fromUtf8(id), QString::fromUtf8(schema.servicesSeenKey())));
            continue;
        }
        Result<ServiceInstance> instance = ServiceInstance::fromJson(id, json);
        const qint64 lastSeenMs = *score;
        seen.erase(score);
        if (!instance) {
            list.unreadable.push_back(instance.error().message); // names the id
            continue;
        }
        instance->lastSeenMs = lastSeenMs;
        list.instances.push_back(std::move(*instance));
    }
    for (auto it = seen.cbegin(); it != seen.cend(); ++it)
        list.unreadable.push_back(
            QStringLiteral("service %1: last seen %2 s ago, but no payload in %3")
                .arg(QString::fromUtf8(it.key()))
                .arg((nowMs - it.value()) / 1000)
                .arg(QString::fromUtf8(schema.servicesKey())));
    std::sort(list.instances.begin(), list.instances.end(),
              [](const ServiceInstance& a, const ServiceInstance& b) {
                  return a.host != b.host ? a.host < b.host : a.id < b.id;
              });
    std::sort(list.unreadable.begin(), list.unreadable.end());
    return list;
}

} // namespace

ServiceRegistry::ServiceRegistry(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema))
{
}

void ServiceRegistry::announce(const ServiceInstance& instance, Context context,
                               Callback<qint64> done) const
{
    if (rejected(validateId(instance.id), context, done))
        return;
    const QByteArray payload = instance.toJson();
    if (payload.size() > kMaxPayloadBytes) {
        deliver(context, done,
                Result<qint64>(ErrorKind::InvalidInput,
                               QStringLiteral("service %1: the payload is %2 bytes; at most %3 "
                                              "are allowed")
                                   .arg(QString::fromUtf8(instance.id))
                                   .arg(payload.size())
                                   .arg(kMaxPayloadBytes)));
        return;
    }
    runScript(m_client, QStringLiteral("service_announce"),
              {m_schema.servicesKey(), m_schema.servicesSeenKey()},
              {QByteArrayLiteral("announce"), instance.id, payload}, nullptr,
              [context, done](Result<Reply> reply) {
                  if (!reply) {
                      deliver(context, done, Result<qint64>(reply.error()));
                      return;
                  }
                  const std::optional<qint64> nowMs = reply->toInteger();
                  deliver(context, done,
                          nowMs ? Result<qint64>(*nowMs)
                                : Result<qint64>(ErrorKind::Protocol,
                                                 QStringLiteral("service_announce.lua answered "
                                                                "no time: %1")
                                                     .arg(reply->toDisplayString())));
              });
}

void ServiceRegistry::withdraw(const QByteArray& id, Context context, Callback<Unit> done) const
{
    if (rejected(validateId(id), context, done))
        return;
    runScript(m_client, QStringLiteral("service_announce"),
              {m_schema.servicesKey(), m_schema.servicesSeenKey()},
              {QByteArrayLiteral("withdraw"), id}, nullptr, [context, done](Result<Reply> reply) {
                  deliver(context, done, reply ? Status(Unit{}) : Status(reply.error()));
              });
}

void ServiceRegistry::list(Context context, Callback<ServiceList> done) const
{
    // Not atomic: an announce or withdraw landing between HGETALL and ZRANGE shows that one
    // entry as unreadable until the next read. On a cluster TIME is any node's clock, which
    // NTP keeps within milliseconds of the registry's node: well inside kStaleMs.
    const KeySchema schema = m_schema;
    m_client->executeBatch(
        {{QByteArrayLiteral("HGETALL"), schema.servicesKey()},
         {QByteArrayLiteral("ZRANGE"), schema.servicesSeenKey(), QByteArrayLiteral("0"),
          QByteArrayLiteral("-1"), QByteArrayLiteral("WITHSCORES")},
         {QByteArrayLiteral("TIME")}},
        nullptr, [schema, context, done](std::vector<Result<Reply>> replies) {
            for (const Result<Reply>& reply : replies) {
                if (!reply) {
                    deliver(context, done, Result<ServiceList>(reply.error()));
                    return;
                }
            }
            const std::optional<qint64> nowMs = replies[2]->toTimeMs();
            if (!nowMs) {
                deliver(context, done,
                        Result<ServiceList>(
                            ErrorKind::Protocol,
                            QStringLiteral("TIME answered %1").arg(replies[2]->toDisplayString())));
                return;
            }
            deliver(context, done,
                    Result<ServiceList>(joined(schema, *replies[0], *replies[1], *nowMs)));
        });
}

} // namespace tollgate
