#include "tollgate/Overrides.h"

#include "core/client/Scan.h"
#include "core/keys/KeyLayout.h"
#include "core/scripts/ScriptRunner.h"

#include <algorithm>

namespace tollgate {

namespace {

qint64 serverMs(const Result<Reply>& time)
{
    return time ? time->toTimeMs().value_or(0) : 0;
}

// The overrides of one user in force at `nowMs`, from HGETALL; a field that is no override is
// an error naming it (the console shows it rather than hiding the user's override).
Result<std::vector<Override>> activeOverrides(const QByteArray& user, const Reply& fields,
                                              qint64 nowMs)
{
    std::vector<Override> out;
    for (size_t i = 0; i + 1 < fields.elements.size(); i += 2) {
        auto o = OverrideStore::fromField(user, fields.elements[i].toBytes(),
                                          fields.elements[i + 1].toBytes());
        if (!o)
            return o.error();
        if (o->activeAt(nowMs))
            out.push_back(std::move(*o));
    }
    std::sort(out.begin(), out.end(),
              [](const Override& a, const Override& b) { return a.action < b.action; });
    return out;
}

// On a cluster the scripts cannot reach the index (another slot): the user's entry is
// written after the change, from the key's end the script answered (-1 permanent, 0 none).
// A refused or failed index write leaves the override in force; reindex() repairs the index.
void indexOnCluster(Client* client, const KeyLayout& layout, const QByteArray& user, qint64 keyEnd,
                    std::function<void()> then)
{
    if (!layout.isCluster()) {
        then();
        return;
    }
    const QByteArray member = KeySchema::escape(user);
    const Command command =
        keyEnd == 0 ? Command{"ZREM", layout.overrideIndexKey(), member}
                    : Command{"ZADD", layout.overrideIndexKey(),
                              keyEnd < 0 ? QByteArray("+inf") : QByteArray::number(keyEnd), member};
    client->execute(command, nullptr, [then](const Result<Reply>&) { then(); });
}

} // namespace

OverrideStore::OverrideStore(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema))
{
}

// KEYS of override_set.lua / override_delete.lua: hash, user stream, global stream, index
// (the hash again on a cluster: none).
static Command overrideKeys(const KeyLayout& layout, const QByteArray& user)
{
    const KeySchema& schema = layout.schema();
    const QByteArray hash = schema.overridesKey(user), stream = schema.userAuditKey(user);
    return {hash, stream, layout.auditMirror(stream),
            layout.isCluster() ? hash : layout.overrideIndexKey()};
}

void OverrideStore::set(const OverrideRequest& request, Context context,
                        Callback<Override> done) const
{
    if (rejected(request.validate(), context, done))
        return;
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) {
        const bool limit = request.kind == OverrideKind::Limit;
        const Command args{request.user,
                           request.action,
                           request.actor.toUtf8(),
                           request.reason.toUtf8(),
                           overrideKindName(request.kind).toUtf8(),
                           limit ? overrideWindowsText(request.windows) : QByteArray(),
                           QByteArray::number(request.durationMs),
                           QByteArray::number(request.untilMs),
                           layout.schema().eventsChannel()};
        runScript(client, QStringLiteral("override_set"), overrideKeys(layout, request.user), args,
                  nullptr, [=](Result<Reply> reply) {
                      if (!reply || reply->elements.size() < 3) {
                          deliver(context, done,
                                  Result<Override>(reply
                                                       ? Error{ErrorKind::Protocol,
                                                               QStringLiteral("malformed reply "
                                                                              "from override_set")}
                                                       : reply.error()));
                          return;
                      }
                      Override stored;
                      stored.user = request.user;
                      stored.action = request.action;
                      stored.kind = request.kind;
                      stored.windows = request.windows;
                      stored.actor = request.actor;
                      stored.reason = request.reason;
                      stored.untilMs = reply->elements[0].toInteger().value_or(0);
                      stored.setMs = reply->elements[1].toInteger().value_or(0);
                      const qint64 keyEnd = reply->elements[2].toInteger().value_or(-1);
                      indexOnCluster(client, layout, request.user, keyEnd,
                                     [=] { deliver(context, done, Result<Override>(stored)); });
                  });
    });
}

void OverrideStore::remove(const QByteArray& user, const QByteArray& action, const QString& actor,
                           const QString& reason, Context context, Callback<bool> done) const
{
    Status valid = KeySchema::validateId(user, QStringLiteral("user id"));
    if (valid && action != Override::kEveryAction)
        valid = KeySchema::validateId(action, QStringLiteral("action"));
    if (valid && (actor.trimmed().isEmpty() || reason.trimmed().isEmpty()))
        valid =
            Error{ErrorKind::InvalidInput, QStringLiteral("an actor and a reason are required")};
    if (rejected(valid, context, done))
        return;
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) {
        const Command args{user, action, actor.toUtf8(), reason.toUtf8(),
                           layout.schema().eventsChannel()};
        runScript(client, QStringLiteral("override_delete"), overrideKeys(layout, user), args,
                  nullptr, [=](Result<Reply> reply) {
                      if (!reply) {
                          deliver(context, done, Result<bool>(reply.error()));
                          return;
                      }
                      const bool deleted = !reply->elements.empty() &&
                                           reply->elements[0].toInteger().value_or(0) == 1;
                      const qint64 keyEnd = reply->elements.size() > 1
                                                ? reply->elements[1].toInteger().value_or(0)
                                                : 0;
                      indexOnCluster(client, layout, user, keyEnd,
                                     [=] { deliver(context, done, Result<bool>(deleted)); });
                  });
    });
}

void OverrideStore::ofUser(const QByteArray& user, Context context,
                           Callback<std::vector<Override>> done) const
{
    if (rejected(KeySchema::validateId(user, QStringLiteral("user id")), context, done))
        return;
    m_client->executeBatch(
        {{"HGETALL", m_schema.overridesKey(user)}, {"TIME"}}, nullptr,
        [=](std::vector<Result<Reply>> replies) {
            if (!replies[0]) {
                deliver(context, done, Result<std::vector<Override>>(replies[0].error()));
                return;
            }
            deliver(context, done, activeOverrides(user, *replies[0], serverMs(replies[1])));
        });
}

void OverrideStore::list(const QByteArray& action, Context context,
                         Callback<std::vector<Override>> done) const
{
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) {
        client->executeBatch(
            {{"TIME"}, {"ZRANGE", layout.overrideIndexKey(), "0", "-1", "WITHSCORES"}}, nullptr,
            [=](std::vector<Result<Reply>> index) {
                if (!index[1]) {
                    deliver(context, done, Result<std::vector<Override>>(index[1].error()));
                    return;
                }
                const qint64 nowMs = serverMs(index[0]);
                std::vector<QByteArray> users;
                std::vector<Command> reads;
                const auto& members = index[1]->elements;
                for (size_t i = 0; i + 1 < members.size(); i += 2) {
                    const QByteArray score = members[i + 1].toBytes();
                    auto user = KeySchema::unescape(members[i].toBytes());
                    if (!user || user->isEmpty() || (score != "inf" && score.toLongLong() <= nowMs))
                        continue; // ended, or no member of ours
                    users.push_back(*user);
                    reads.push_back({"HGETALL", layout.schema().overridesKey(*user)});
                }
                if (reads.empty()) {
                    deliver(context, done, Result<std::vector<Override>>(std::vector<Override>{}));
                    return;
                }
                client->executeBatch(
                    std::move(reads), nullptr, [=](std::vector<Result<Reply>> hashes) {
                        std::vector<Override> all;
                        for (size_t i = 0; i < hashes.size(); ++i) {
                            auto found = hashes[i]
                                             ? activeOverrides(users[i], *hashes[i], nowMs)
                                             : Result<std::vector<Override>>(hashes[i].error());
                            if (!found) {
                                deliver(context, done, std::move(found));
                                return;
                            }
                            for (Override& o : *found)
                                if (action.isEmpty() || o.action == action || o.everyAction())
                                    all.push_back(std::move(o));
                        }
                        deliver(context, done, Result<std::vector<Override>>(std::move(all)));
                    });
            });
    });
}

void OverrideStore::reindex(Context context, Callback<qint64> done) const
{
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) {
        ScanOptions scan;
        scan.pattern = layout.schema().allOverridesPattern();
        scan.type = QByteArrayLiteral("hash");
        scan.count = 1000;
        collectKeys(client, scan, nullptr, [=](Result<QList<QByteArray>> keys) {
            if (!keys) {
                deliver(context, done, Result<qint64>(keys.error()));
                return;
            }
            std::vector<Command> reads{{"TIME"}};
            QList<QByteArray> users;
            for (const QByteArray& key : *keys) {
                const KeySchema::Parsed parsed = layout.schema().parse(key);
                if (parsed.kind != KeySchema::Parsed::Kind::Overrides)
                    continue;
                users << KeySchema::escape(parsed.user);
                reads.push_back({"PEXPIRETIME", key});
            }
            client->executeBatch(std::move(reads), nullptr, [=](std::vector<Result<Reply>> ends) {
                // override_reindex.lua: the index replaced by these members, atomically.
                Command args{QByteArray::number(serverMs(ends[0]))};
                for (qsizetype i = 0; i < users.size(); ++i) {
                    const qint64 end =
                        ends[size_t(i) + 1] ? ends[size_t(i) + 1]->toInteger().value_or(-2) : -2;
                    if (end == -2)
                        continue; // gone since the scan
                    args << users[i] << (end == -1 ? QByteArray("+inf") : QByteArray::number(end));
                }
                runScript(client, QStringLiteral("override_reindex"), {layout.overrideIndexKey()},
                          args, nullptr, [=](Result<Reply> reply) {
                              deliver(context, done,
                                      reply ? Result<qint64>(reply->toInteger().value_or(0))
                                            : Result<qint64>(reply.error()));
                          });
            });
        });
    });
}

} // namespace tollgate
