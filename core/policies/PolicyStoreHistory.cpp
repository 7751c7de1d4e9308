// PolicyStore: the history of a policy, rollback and restore (policy_restore.lua).
#include "tollgate/PolicyStore.h"

#include "core/keys/IdText.h"
#include "core/keys/KeyLayout.h"
#include "core/scripts/ScriptRunner.h"

namespace tollgate {

void PolicyStore::history(const QByteArray& action, Context context,
                          Callback<PolicyHistory> done) const
{
    const Status id = KeySchema::validateId(action, QStringLiteral("action"));
    if (rejected(id, context, done))
        return;
    withLayout([=](const PolicyStore& store, const KeyLayout& layout) {
        std::vector<Command> commands{{QByteArrayLiteral("HGETALL"), layout.policyKey(action)},
                                      {QByteArrayLiteral("XREVRANGE"),
                                       layout.policyHistoryKey(action), "+", "-", "COUNT", "1000"}};
        store.m_client->executeBatch(
            std::move(commands), nullptr,
            [action, context, done](std::vector<Result<Reply>> replies) {
                for (const Result<Reply>& reply : replies) {
                    if (!reply) {
                        deliver(context, done, Result<PolicyHistory>(reply.error()));
                        return;
                    }
                }
                PolicyHistory history;
                history.action = action;
                if (!replies[0]->elements.empty())
                    history.current = PolicyRevision::fromFields(replies[0]->toPairs());
                for (const Reply& entry : replies[1]->elements) { // [id, [field, value, ...]]
                    if (entry.elements.size() == 2)
                        history.earlier.push_back(
                            PolicyRevision::fromFields(entry.elements[1].toPairs()));
                }
                if (!history.current && history.earlier.empty()) {
                    deliver(context, done,
                            Result<PolicyHistory>(ErrorKind::NotFound,
                                                  QStringLiteral("no policy and no history for "
                                                                 "action ") +
                                                      idToDisplayText(action)));
                    return;
                }
                deliver(context, done, Result<PolicyHistory>(std::move(history)));
            });
    });
}

void PolicyStore::rollback(const QByteArray& action, qint64 fromRevision, qint64 toRevision,
                           const QString& actor, const QString& reason, Context context,
                           Callback<qint64> done) const
{
    if (fromRevision < 1 || toRevision < 1) {
        deliver(context, done,
                Result<qint64>(ErrorKind::InvalidInput,
                               QStringLiteral("a rollback goes from a stored revision to an "
                                              "earlier one (both >= 1)")));
        return;
    }
    restoreRevision(action, fromRevision, toRevision, actor, reason, context, std::move(done));
}

void PolicyStore::restore(const QByteArray& action, qint64 toRevision, const QString& actor,
                          const QString& reason, Context context, Callback<qint64> done) const
{
    restoreRevision(action, 0, toRevision, actor, reason, context, std::move(done));
}

void PolicyStore::restoreRevision(const QByteArray& action, qint64 expectedRevision,
                                  qint64 toRevision, const QString& actor, const QString& reason,
                                  Context context, Callback<qint64> done) const
{
    Status valid = KeySchema::validateId(action, QStringLiteral("action"));
    if (valid && reason.trimmed().isEmpty())
        valid = Error{ErrorKind::InvalidInput, QStringLiteral("a reason is required")};
    if (valid && toRevision < 0)
        valid = Error{ErrorKind::InvalidInput, QStringLiteral("revision must be >= 0")};
    if (rejected(valid, context, done))
        return;
    withLayout([=](const PolicyStore& store, const KeyLayout& layout) {
        runScript(store.m_client, QStringLiteral("policy_restore"), scriptKeys(layout, action),
                  {QByteArray::number(expectedRevision), actor.toUtf8(),
                   layout.schema().eventsChannel(), reason.toUtf8(),
                   QByteArray::number(toRevision)},
                  nullptr, [context, done](Result<Reply> reply) {
                      if (!reply)
                          deliver(context, done, Result<qint64>(reply.error()));
                      else
                          deliver(context, done, Result<qint64>(reply->toInteger().value_or(0)));
                  });
    });
}

} // namespace tollgate
