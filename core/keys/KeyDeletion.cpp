#include "core/keys/KeyDeletion.h"

#include "core/keys/KeyLayout.h"
#include "core/scripts/ScriptRunner.h"
#include "tollgate/Moderation.h"

#include <QMutex>

namespace tollgate {

KeyDeletion::KeyDeletion(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema))
{
}

void KeyDeletion::removeOne(const QByteArray& key, const QString& actor, const QString& reason,
                            Callback<qint64> done) const
{
    using Kind = KeySchema::Parsed::Kind;
    const KeySchema::Parsed parsed = m_schema.parse(key);
    const Moderation moderation(m_client, m_schema);
    switch (parsed.kind) {
    case Kind::ActionBan:
    case Kind::UserBan: // action "" = the user-wide ban, as unban.lua records it
        moderation.unbanKeys(parsed.user, parsed.action, {key}, actor, reason, nullptr, done);
        return;
    case Kind::State:
        moderation.resetKeys(parsed.user, parsed.action, {key}, actor, reason, nullptr, done);
        return;
    default:
        break;
    }
    if (actor.trimmed().isEmpty() || reason.trimmed().isEmpty()) {
        done(Error{ErrorKind::InvalidInput, QStringLiteral("an actor and a reason are required")});
        return;
    }
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) {
        // delete.lua writes its entry into KEYS[2]: a stream in the key's own slot.
        Result<QByteArray> stream = layout.auditStreamBeside(key);
        if (!stream) {
            done(stream.error());
            return;
        }
        runScript(client, QStringLiteral("delete"), {key, *stream},
                  {parsed.user, parsed.action, actor.toUtf8(), reason.toUtf8(),
                   layout.schema().eventsChannel()},
                  nullptr, [done](Result<Reply> reply) {
                      if (!reply)
                          done(reply.error());
                      else
                          done(reply->toInteger().value_or(0));
                  });
    });
}

void KeyDeletion::remove(const QList<QByteArray>& keys, const QString& actor, const QString& reason,
                         Context context, Callback<Outcome> done) const
{
    struct Progress
    {
        QMutex mutex; // a refused key answers on this thread, the others on the worker
        Outcome outcome;
        qsizetype pending = 0;
    };
    auto progress = std::make_shared<Progress>();
    progress->pending = keys.size();
    if (keys.isEmpty()) {
        deliver(context, done, Result<Outcome>(Outcome{}));
        return;
    }
    for (const QByteArray& key : keys) {
        removeOne(key, actor, reason, [=](Result<qint64> removed) {
            QMutexLocker lock(&progress->mutex);
            Outcome& outcome = progress->outcome;
            if (!removed)
                outcome.failed.append({key, removed.error()});
            else if (*removed > 0)
                outcome.deleted.append(key);
            else
                outcome.missing.append(key);
            if (--progress->pending == 0)
                deliver(context, done, Result<Outcome>(outcome));
        });
    }
}

} // namespace tollgate
