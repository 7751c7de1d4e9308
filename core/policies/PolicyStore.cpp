#include "tollgate/PolicyStore.h"

#include "core/client/Scan.h"
#include "core/keys/KeyLayout.h"
#include "core/scripts/ScriptRunner.h"

#include <algorithm>

namespace tollgate {

PolicyStore::PolicyStore(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema))
{
}

namespace {

// The stored hash as a policy, or why it is not one (WrongType: exit 3 in the CLI, a row
// marked invalid in the console; never mistaken for the caller's bad input).
Result<Policy> storedPolicy(const KeyLayout& layout, const QByteArray& action,
                            const QList<QPair<QByteArray, QByteArray>>& fields)
{
    auto policy = Policy::fromFields(action, fields);
    const Status valid = policy ? policy->validate() : Status(policy.error());
    if (!valid)
        return Error{valid.error().kind == ErrorKind::Contract ? ErrorKind::Contract
                                                               : ErrorKind::WrongType,
                     QStringLiteral("policy %1 is invalid: %2")
                         .arg(QString::fromUtf8(layout.policyKey(action)), valid.error().message)};
    return policy;
}

// HGETALL of every key in one pipeline; keys that are not policy hashes of ours are skipped.
void readPolicies(Client* client, const KeyLayout& layout, const QList<QByteArray>& keys,
                  Context context, const Callback<PolicyListing>& done)
{
    std::vector<Command> commands;
    QList<QByteArray> actions;
    for (const QByteArray& key : keys) {
        const auto parsed = layout.schema().parse(key);
        if (parsed.kind != KeySchema::Parsed::Kind::Policy || actions.contains(parsed.action))
            continue;
        actions << parsed.action;
        commands.push_back({QByteArrayLiteral("HGETALL"), key});
    }
    client->executeBatch(
        std::move(commands), nullptr,
        [layout, actions, context, done](std::vector<Result<Reply>> replies) {
            PolicyListing listing;
            for (int i = 0; i < actions.size(); ++i) {
                const Result<Reply>& reply = replies[size_t(i)];
                if (reply && reply->elements.empty())
                    continue; // deleted since the index named it
                auto policy = reply ? storedPolicy(layout, actions[i], reply->toPairs())
                                    : Result<Policy>(reply.error());
                if (policy)
                    listing.policies.push_back(*policy);
                else
                    listing.invalid.push_back({actions[i], policy.error().message});
            }
            std::sort(listing.policies.begin(), listing.policies.end(),
                      [](const Policy& a, const Policy& b) { return a.action < b.action; });
            deliver(context, done, Result<PolicyListing>(std::move(listing)));
        });
}

// The policy keys an index names (escaped action names, plus the marker "*"), as they are:
// a member that is no escaped name names no hash, and policy_reindex.lua drops it.
QList<QByteArray> indexedKeys(const KeyLayout& layout, const Reply& members)
{
    const QByteArray head = layout.policyPattern().chopped(1); // "<p>:policy:", "<p>:{:}:policy:"
    QList<QByteArray> keys;
    for (const Reply& member : members.elements) {
        if (member.toBytes() != "*")
            keys << head + member.toBytes();
    }
    return keys;
}

} // namespace

Command PolicyStore::scriptKeys(const KeyLayout& layout, const QByteArray& action)
{
    return {layout.policyKey(action), layout.policyAuditKey(), layout.policyIndexKey(),
            layout.policyHistoryKey(action)};
}

void PolicyStore::withLayout(std::function<void(const PolicyStore&, const KeyLayout&)> call) const
{
    const PolicyStore store = *this;
    KeyLayout::of(m_client, m_schema, [store, call = std::move(call)](const KeyLayout& layout) {
        call(store, layout);
    });
}

void PolicyStore::get(const QByteArray& action, Context context, Callback<Policy> done) const
{
    const Status id = KeySchema::validateId(action, QStringLiteral("action"));
    if (rejected(id, context, done))
        return;
    withLayout([=](const PolicyStore& store, const KeyLayout& layout) {
        store.m_client->execute(
            {QByteArrayLiteral("HGETALL"), layout.policyKey(action)}, nullptr,
            [layout, action, context, done](Result<Reply> reply) {
                if (!reply) {
                    deliver(context, done, Result<Policy>(reply.error()));
                    return;
                }
                if (reply->elements.empty()) {
                    deliver(context, done,
                            Result<Policy>(ErrorKind::NotFound,
                                           QStringLiteral("no policy for action '") +
                                               QString::fromUtf8(action) + QLatin1Char('\'')));
                    return;
                }
                deliver(context, done, storedPolicy(layout, action, reply->toPairs()));
            });
    });
}

void PolicyStore::listAll(Context context, Callback<PolicyListing> done) const
{
    withLayout([=](const PolicyStore& store, const KeyLayout& layout) {
        store.m_client->execute(
            {QByteArrayLiteral("SMEMBERS"), layout.policyIndexKey()}, nullptr,
            [store, layout, context, done](Result<Reply> members) {
                if (!members) {
                    deliver(context, done, Result<PolicyListing>(members.error()));
                    return;
                }
                if (!members->elements.empty()) { // the usual case: one SMEMBERS, one pipeline
                    readPolicies(store.m_client, layout, indexedKeys(layout, *members), context,
                                 done);
                    return;
                }
                // No index: find the policies by SCAN, and rebuild the index when we may write.
                store.scanPolicyKeys(layout, [store, layout, context,
                                              done](Result<QList<QByteArray>> keys) {
                    if (!keys) {
                        deliver(context, done, Result<PolicyListing>(keys.error()));
                        return;
                    }
                    // Read after the rebuild, so the next listing finds the index; a user who may
                    // not write gets the listing all the same.
                    const QList<QByteArray> found = *keys;
                    store.writeIndex(layout, found, {},
                                     [store, layout, found, context, done](const Result<qint64>&) {
                                         readPolicies(store.m_client, layout, found, context, done);
                                     });
                });
            });
    });
}

void PolicyStore::list(Context context, Callback<std::vector<Policy>> done) const
{
    listAll(nullptr, [context, done](Result<PolicyListing> listing) {
        if (!listing)
            deliver(context, done, Result<std::vector<Policy>>(listing.error()));
        else
            deliver(context, done, Result<std::vector<Policy>>(std::move(listing->policies)));
    });
}

void PolicyStore::reindex(Context context, Callback<qint64> done) const
{
    withLayout([=](const PolicyStore& store, const KeyLayout& layout) {
        store.m_client->execute(
            {QByteArrayLiteral("SMEMBERS"), layout.policyIndexKey()}, nullptr,
            [store, layout, context, done](Result<Reply> members) {
                // A wrong-typed index is reported by policy_reindex.lua itself.
                const QList<QByteArray> indexed =
                    members ? indexedKeys(layout, *members) : QList<QByteArray>();
                store.scanPolicyKeys(layout, [store, layout, indexed, context,
                                              done](Result<QList<QByteArray>> keys) {
                    if (!keys) {
                        deliver(context, done, Result<qint64>(keys.error()));
                        return;
                    }
                    store.writeIndex(layout, *keys, indexed, [context, done](Result<qint64> count) {
                        deliver(context, done, std::move(count));
                    });
                });
            });
    });
}

void PolicyStore::scanPolicyKeys(const KeyLayout& layout, Callback<QList<QByteArray>> done) const
{
    ScanOptions scan;
    scan.pattern = layout.policyPattern();
    scan.type = QByteArrayLiteral("hash");
    scan.count = 1000;
    collectKeys(m_client, scan, nullptr, std::move(done));
}

void PolicyStore::writeIndex(const KeyLayout& layout, const QList<QByteArray>& found,
                             const QList<QByteArray>& indexed, Callback<qint64> done) const
{
    Command keys{layout.policyIndexKey()};
    for (const QByteArray& key : found + indexed) {
        if (!keys.contains(key))
            keys << key;
    }
    runScript(m_client, QStringLiteral("policy_reindex"), keys, {}, nullptr,
              [done](Result<Reply> reply) {
                  if (!reply)
                      done(reply.error());
                  else
                      done(reply->toInteger().value_or(0));
              });
}

void PolicyStore::save(const Policy& policy, const QString& actor, Context context,
                       Callback<qint64> done) const
{
    save(policy, actor, QString(), context, std::move(done));
}

void PolicyStore::save(const Policy& policy, const QString& actor, const QString& reason,
                       Context context, Callback<qint64> done) const
{
    const Status valid = policy.validate();
    if (rejected(valid, context, done))
        return;
    // policy_set.lua writes the global audit entry with the change; the summary is its reason,
    // after the operator's own reason when there is one.
    QString summary = policy.windowsText() +
                      (policy.hasBan() ? QStringLiteral(", ") + policy.banText() : QString());
    if (!reason.isEmpty())
        summary = reason + QStringLiteral(": ") + summary;
    Command args{QByteArray::number(policy.revision), actor.toUtf8(), m_schema.eventsChannel(),
                 summary.toUtf8()};
    for (const auto& [field, value] : policy.toFields())
        args << field << value;
    withLayout([=](const PolicyStore& store, const KeyLayout& layout) {
        runScript(store.m_client, QStringLiteral("policy_set"),
                  scriptKeys(layout, policy.action), args, nullptr, [=](Result<Reply> reply) {
                      if (!reply) {
                          deliver(context, done, Result<qint64>(reply.error()));
                          return;
                      }
                      deliver(context, done, Result<qint64>(reply->toInteger().value_or(0)));
                  });
    });
}

void PolicyStore::remove(const QByteArray& action, qint64 revision, const QString& actor,
                         Context context, Callback<Unit> done) const
{
    remove(action, revision, actor, QString(), context, std::move(done));
}

void PolicyStore::remove(const QByteArray& action, qint64 revision, const QString& actor,
                         const QString& reason, Context context, Callback<Unit> done) const
{
    withLayout([=](const PolicyStore& store, const KeyLayout& layout) {
        runScript(store.m_client, QStringLiteral("policy_delete"), scriptKeys(layout, action),
                  {QByteArray::number(revision), actor.toUtf8(), layout.schema().eventsChannel(),
                   reason.toUtf8()},
                  nullptr, [=](Result<Reply> reply) {
                      deliver(context, done, reply ? Status(Unit{}) : Status(reply.error()));
                  });
    });
}

} // namespace tollgate
