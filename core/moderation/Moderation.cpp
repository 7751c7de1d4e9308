#include "tollgate/Moderation.h"

#include "core/client/Scan.h"
#include "core/keys/KeyLayout.h"
#include "core/scripts/ScriptRunner.h"

namespace tollgate {

namespace {

using Kind = KeySchema::Parsed::Kind;

Status validateWrite(const QByteArray& user, const QByteArray& action, const QString& actor,
                     const QString& reason)
{
    Status status = KeySchema::validateId(user, QStringLiteral("user id"));
    if (status && !action.isEmpty())
        status = KeySchema::validateId(action, QStringLiteral("action"));
    if (status && actor.trimmed().isEmpty())
        status = Error{ErrorKind::InvalidInput, QStringLiteral("an actor is required")};
    // Every ban, unban and reset says why: the audit trail is for people.
    if (status && reason.trimmed().isEmpty())
        status = Error{ErrorKind::InvalidInput, QStringLiteral("a reason is required")};
    if (status && reason.size() > 2000)
        status =
            Error{ErrorKind::InvalidInput, QStringLiteral("reason is longer than 2000 characters")};
    return status;
}

/// unban.lua and reset.lua share a shape: KEYS = the user's audit stream, the global one, then
/// the keys to delete; ARGV = user, action, actor, reason, channel; the reply is how many were
/// deleted. The script writes both audit entries with the change, or nothing.
struct CountingWrite
{
    QString script;
    QByteArray user;
    QByteArray action;
    QString actor;
    QString reason;
};

void runCountingWrite(Client* client, const KeySchema& schema, const CountingWrite& write,
                      const QList<QByteArray>& targets, Context context, Callback<qint64> done)
{
    KeyLayout::of(client, schema, [=](const KeyLayout& layout) {
        const QByteArray stream = schema.userAuditKey(write.user);
        Command keys{stream, layout.auditMirror(stream)};
        keys << targets;
        runScript(client, write.script, keys,
                  {write.user, write.action, write.actor.toUtf8(), write.reason.toUtf8(),
                   schema.eventsChannel()},
                  nullptr, [=](Result<Reply> reply) {
                      if (!reply) {
                          deliver(context, done, Result<qint64>(reply.error()));
                          return;
                      }
                      deliver(context, done, Result<qint64>(reply->toInteger().value_or(0)));
                  });
    });
}

// ban.lua: KEYS = the ban hash, the user's audit stream, the global mirror.
void sendBan(Client* client, const BanRequest& request, const Command& keys,
             const KeySchema& schema, Context context, Callback<BanInfo> done)
{
    const QByteArray channel = schema.eventsChannel();
    const QByteArray statsKey = schema.statsKey(request.action.isEmpty() ? QByteArrayLiteral("*")
                                                                         : request.action);
    runScript(client, QStringLiteral("ban"), keys,
              {request.user, request.action, request.actor.toUtf8(), request.reason.toUtf8(),
               QByteArray::number(request.durationMs), QByteArray::number(request.untilMs),
               channel},
              nullptr, [=](Result<Reply> reply) {
                  if (!reply) {
                      deliver(context, done, Result<BanInfo>(reply.error()));
                      return;
                  }
                  BanInfo ban;
                  ban.user = request.user;
                  ban.action = request.action;
                  ban.reason = request.reason;
                  ban.actor = request.actor;
                  ban.source = QStringLiteral("manual");
                  if (reply->elements.size() >= 2) {
                      ban.untilMs = reply->elements[0].toInteger().value_or(0);
                      ban.createdMs = reply->elements[1].toInteger().value_or(0);
                  }
                  // Counted in Redis for the metrics exporter (lua/stats.lua) before the ban
                  // is reported, so a one-shot CLI does not exit with the count unsent. A
                  // user who may ban but not write statistics still bans.
                  const Command counts{"counts", "0", "0", "0", "0", "0", "0", "1"};
                  runScript(client, QStringLiteral("stats"), {statsKey}, counts, nullptr,
                            [=](const Result<Reply>&) {
                                deliver(context, done, Result<BanInfo>(ban));
                            });
              });
}

} // namespace

Moderation::Moderation(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema))
{
}

BanInfo Moderation::banFromFields(const QByteArray& user,
                                  const QList<QPair<QByteArray, QByteArray>>& fields)
{
    BanInfo ban;
    ban.user = user;
    for (const auto& [field, value] : fields) {
        if (field == "reason")
            ban.reason = QString::fromUtf8(value);
        else if (field == "actor")
            ban.actor = QString::fromUtf8(value);
        else if (field == "source")
            ban.source = QString::fromUtf8(value);
        else if (field == "action")
            ban.action = value;
        else if (field == "created_ms")
            ban.createdMs = value.toLongLong();
        else if (field == "until_ms")
            ban.untilMs = value.toLongLong();
    }
    return ban;
}

void Moderation::ban(const BanRequest& request, Context context, Callback<BanInfo> done) const
{
    Status valid = validateWrite(request.user, request.action, request.actor, request.reason);
    if (valid && (request.durationMs < 0 || request.untilMs < 0))
        valid = Error{ErrorKind::InvalidInput, QStringLiteral("ban duration must be positive")};
    if (valid && request.durationMs > 0 && request.untilMs > 0)
        valid = Error{ErrorKind::InvalidInput,
                      QStringLiteral("give a ban duration or an end time, not both")};
    if (rejected(valid, context, done))
        return;
    const QByteArray banKey = request.action.isEmpty()
                                  ? m_schema.userBanKey(request.user)
                                  : m_schema.actionBanKey(request.user, request.action);
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) {
        const KeySchema& schema = layout.schema();
        const QByteArray stream = schema.userAuditKey(request.user);
        sendBan(client, request, {banKey, stream, layout.auditMirror(stream)}, schema, context,
                done);
    });
}

void Moderation::userKeys(const QByteArray& user,
                          std::function<bool(const KeySchema::Parsed&)> accept,
                          Callback<QList<QByteArray>> done) const
{
    ScanOptions scan;
    scan.pattern = m_schema.userPattern(user);
    scan.count = 1000;
    const KeySchema schema = m_schema;
    collectKeys(m_client, scan, nullptr,
                [schema, user, accept, done](Result<QList<QByteArray>> keys) {
                    if (!keys) {
                        done(keys.error());
                        return;
                    }
                    QList<QByteArray> accepted;
                    for (const QByteArray& key : *keys) {
                        const auto parsed = schema.parse(key);
                        // The pattern is exact for escaped ids; the check guards foreign
                        // look-alikes.
                        if (parsed.user == user && accept(parsed))
                            accepted << key;
                    }
                    done(accepted);
                });
}

void Moderation::unban(const QByteArray& user, const QByteArray& action, const QString& actor,
                       const QString& reason, Context context, Callback<qint64> done) const
{
    const Status valid = validateWrite(user, action, actor, reason);
    if (rejected(valid, context, done))
        return;
    const KeySchema schema = m_schema;
    const Moderation self = *this;
    auto run = [=](const QList<QByteArray>& banKeys) {
        self.unbanKeys(user, action, banKeys, actor, reason, context, done);
    };
    if (!action.isEmpty()) {
        run({schema.actionBanKey(user, action)});
        return;
    }
    userKeys(
        user,
        [](const KeySchema::Parsed& p) {
            return p.kind == Kind::UserBan || p.kind == Kind::ActionBan;
        },
        [=](Result<QList<QByteArray>> keys) {
            if (!keys) {
                deliver(context, done, Result<qint64>(keys.error()));
                return;
            }
            QList<QByteArray> banKeys = *keys;
            if (!banKeys.contains(schema.userBanKey(user)))
                banKeys << schema.userBanKey(user);
            run(banKeys);
        });
}

void Moderation::reset(const QByteArray& user, const QByteArray& action, const QString& actor,
                       const QString& reason, Context context, Callback<qint64> done) const
{
    const Status valid = validateWrite(user, action, actor, reason);
    if (rejected(valid, context, done))
        return;
    const Moderation self = *this;
    userKeys(
        user,
        [action](const KeySchema::Parsed& p) {
            return p.kind == Kind::State && (action.isEmpty() || p.action == action);
        },
        [=](Result<QList<QByteArray>> stateKeys) {
            if (!stateKeys) {
                deliver(context, done, Result<qint64>(stateKeys.error()));
                return;
            }
            self.resetKeys(user, action, *stateKeys, actor, reason, context, done);
        });
}

void Moderation::unbanKeys(const QByteArray& user, const QByteArray& action,
                           const QList<QByteArray>& keys, const QString& actor,
                           const QString& reason, Context context, Callback<qint64> done) const
{
    if (rejected(validateWrite(user, action, actor, reason), context, done))
        return;
    runCountingWrite(m_client, m_schema, {QStringLiteral("unban"), user, action, actor, reason},
                     keys, context, std::move(done));
}

void Moderation::resetKeys(const QByteArray& user, const QByteArray& action,
                           const QList<QByteArray>& keys, const QString& actor,
                           const QString& reason, Context context, Callback<qint64> done) const
{
    if (rejected(validateWrite(user, action, actor, reason), context, done))
        return;
    runCountingWrite(m_client, m_schema, {QStringLiteral("reset"), user, action, actor, reason},
                     keys, context, std::move(done));
}

void Moderation::bans(const QByteArray& user, Context context,
                      Callback<std::vector<BanInfo>> done) const
{
    const Status valid = KeySchema::validateId(user, QStringLiteral("user id"));
    if (rejected(valid, context, done))
        return;
    const Moderation self = *this;
    userKeys(
        user,
        [](const KeySchema::Parsed& p) {
            return p.kind == Kind::UserBan || p.kind == Kind::ActionBan;
        },
        [=](Result<QList<QByteArray>> keys) {
            if (!keys)
                deliver(context, done, Result<std::vector<BanInfo>>(keys.error()));
            else
                self.readBans(user, *keys, context, done);
        });
}

void Moderation::bansOf(const QByteArray& user, const QList<QByteArray>& actions, Context context,
                        Callback<std::vector<BanInfo>> done) const
{
    const Status valid = KeySchema::validateId(user, QStringLiteral("user id"));
    if (rejected(valid, context, done))
        return;
    QList<QByteArray> keys{m_schema.userBanKey(user)};
    for (const QByteArray& action : actions)
        if (!action.isEmpty())
            keys << m_schema.actionBanKey(user, action);
    readBans(user, keys, context, done);
}

void Moderation::readBans(const QByteArray& user, const QList<QByteArray>& keys, Context context,
                          Callback<std::vector<BanInfo>> done) const
{
    Client* client = m_client;
    auto bans = std::make_shared<std::vector<BanInfo>>();
    auto pending = std::make_shared<int>(keys.size());
    if (keys.isEmpty()) {
        deliver(context, done, Result<std::vector<BanInfo>>(*bans));
        return;
    }
    for (const QByteArray& key : keys) {
        auto ban = std::make_shared<BanInfo>();
        client->execute({QByteArrayLiteral("HGETALL"), key}, nullptr, [=](Result<Reply> r) {
            if (r && !r->elements.empty())
                *ban = banFromFields(user, r->toPairs());
        });
        client->execute({QByteArrayLiteral("PTTL"), key}, nullptr, [=](Result<Reply> r) {
            // Replies arrive in order: HGETALL has been handled already.
            if (r && !ban->source.isEmpty()) {
                ban->ttlMs = r->toInteger().value_or(-1);
                bans->push_back(*ban);
            }
            if (--*pending == 0)
                deliver(context, done, Result<std::vector<BanInfo>>(*bans));
        });
    }
}

} // namespace tollgate
