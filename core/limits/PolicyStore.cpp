#include "core/limits/PolicyStore.h"

#include "core/redis/Scan.h"
#include "core/scripts/ScriptRunner.h"

#include <algorithm>

namespace tollgate {

PolicyStore::PolicyStore(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema))
{
}

void PolicyStore::get(const QByteArray& action, Context context, Callback<Policy> done) const
{
    const Status id = KeySchema::validateId(action, QStringLiteral("action"));
    if (!id) {
        deliver(context, done, Result<Policy>(id.error()));
        return;
    }
    m_client->execute({QByteArrayLiteral("HGETALL"), m_schema.policyKey(action)}, nullptr,
                      [action, context, done](Result<Reply> reply) {
                          if (!reply) {
                              deliver(context, done, Result<Policy>(reply.error()));
                              return;
                          }
                          if (reply->elements.empty()) {
                              deliver(context, done,
                                      Result<Policy>(ErrorKind::NotFound,
                                                     QStringLiteral("no policy for action '") +
                                                         QString::fromUtf8(action) +
                                                         QLatin1Char('\'')));
                              return;
                          }
                          deliver(context, done, Policy::fromFields(action, reply->toPairs()));
                      });
}

void PolicyStore::list(Context context, Callback<std::vector<Policy>> done) const
{
    Client* client = m_client;
    const KeySchema schema = m_schema;
    ScanOptions scan;
    scan.pattern = schema.policyPattern();
    scan.type = QByteArrayLiteral("hash");
    collectKeys(client, scan, nullptr, [=](Result<QList<QByteArray>> keys) {
        if (!keys) {
            deliver(context, done, Result<std::vector<Policy>>(keys.error()));
            return;
        }
        auto policies = std::make_shared<std::vector<Policy>>();
        auto pending = std::make_shared<int>(keys->size());
        if (keys->isEmpty()) {
            deliver(context, done, Result<std::vector<Policy>>(*policies));
            return;
        }
        for (const QByteArray& key : *keys) {
            const auto parsed = schema.parse(key);
            client->execute({QByteArrayLiteral("HGETALL"), key}, nullptr,
                            [=](Result<Reply> reply) {
                                // A malformed or invalid policy (written by hand) is skipped
                                // here; `get` and the hit report it.
                                if (reply && parsed.kind == KeySchema::Parsed::Kind::Policy) {
                                    auto policy = Policy::fromFields(parsed.action, reply->toPairs());
                                    if (policy && policy->validate())
                                        policies->push_back(*policy);
                                }
                                if (--*pending > 0)
                                    return;
                                std::sort(policies->begin(), policies->end(),
                                          [](const Policy& a, const Policy& b) {
                                              return a.action < b.action;
                                          });
                                deliver(context, done, Result<std::vector<Policy>>(*policies));
                            });
        }
    });
}

void PolicyStore::save(const Policy& policy, const QString& actor, Context context,
                       Callback<qint64> done) const
{
    const Status valid = policy.validate();
    if (rejected(valid, context, done))
        return;
    // policy_set.lua writes the global audit entry with the change; the summary is its reason.
    const QString summary = policy.windowsText() +
                            (policy.hasBan() ? QStringLiteral(", ") + policy.banText() : QString());
    Command args{QByteArray::number(policy.revision), actor.toUtf8(), m_schema.eventsChannel(),
                 summary.toUtf8()};
    for (const auto& [field, value] : policy.toFields())
        args << field << value;
    runScript(m_client, QStringLiteral("policy_set"),
              {m_schema.policyKey(policy.action), m_schema.auditKey()}, args, nullptr,
              [=](Result<Reply> reply) {
                  if (!reply) {
                      deliver(context, done, Result<qint64>(reply.error()));
                      return;
                  }
                  deliver(context, done, Result<qint64>(reply->toInteger().value_or(0)));
              });
}

void PolicyStore::remove(const QByteArray& action, qint64 revision, const QString& actor,
                         Context context, Callback<Unit> done) const
{
    runScript(m_client, QStringLiteral("policy_delete"),
              {m_schema.policyKey(action), m_schema.auditKey()},
              {QByteArray::number(revision), actor.toUtf8(), m_schema.eventsChannel()}, nullptr,
              [=](Result<Reply> reply) {
                  deliver(context, done, reply ? Status(Unit{}) : Status(reply.error()));
              });
}

} // namespace tollgate
