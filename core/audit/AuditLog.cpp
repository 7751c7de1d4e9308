#include "tollgate/AuditLog.h"
#include "core/keys/KeyLayout.h"

#include <algorithm>

namespace tollgate {

AuditEntry AuditEntry::fromStreamEntry(const Reply& entry)
{
    AuditEntry out;
    if (entry.elements.size() < 2)
        return out;
    out.id = entry.elements[0].toBytes();
    out.timeMs = out.id.split('-').value(0).toLongLong();
    for (const auto& [field, value] : entry.elements[1].toPairs()) {
        if (field == "event")
            out.event = QString::fromUtf8(value);
        else if (field == "user")
            out.user = value;
        else if (field == "action")
            out.action = value;
        else if (field == "actor")
            out.actor = QString::fromUtf8(value);
        else if (field == "reason")
            out.reason = QString::fromUtf8(value);
        else if (field == "until_ms")
            out.untilMs = value.toLongLong();
        else if (field == "detail")
            out.detail = QString::fromUtf8(value);
        else if (field == "count") // unban, reset: how many keys went
            out.detail = QStringLiteral("count=") + QString::fromUtf8(value);
    }
    return out;
}

bool AuditEntry::newerThan(const AuditEntry& other) const
{
    auto order = [](const QByteArray& id) {
        const qsizetype dash = id.indexOf('-');
        return std::pair{id.left(dash).toLongLong(), dash < 0 ? 0 : id.mid(dash + 1).toLongLong()};
    };
    return order(id) > order(other.id);
}

AuditLog::AuditLog(Client* client, KeySchema schema) : m_client(client), m_schema(std::move(schema))
{
}

QByteArray AuditLog::streamKey(const KeyLayout& layout, const QByteArray& user)
{
    // On a cluster the global stream holds what no user's stream does: policy changes and
    // console notes (the {:} stream); users' changes stay in their own streams.
    return user.isEmpty() ? layout.policyAuditKey() : layout.schema().userAuditKey(user);
}

void AuditLog::latest(const QByteArray& user, int count, Context context,
                      Callback<std::vector<AuditEntry>> done) const
{
    range(user,
          {QByteArrayLiteral("XREVRANGE"), QByteArrayLiteral("+"), QByteArrayLiteral("-"),
           QByteArrayLiteral("COUNT"), QByteArray::number(count)},
          context, std::move(done));
}

void AuditLog::newer(const QByteArray& user, const QByteArray& afterId, int count, Context context,
                     Callback<std::vector<AuditEntry>> done) const
{
    const QByteArray start = afterId.isEmpty() ? QByteArrayLiteral("-") : '(' + afterId;
    range(user,
          {QByteArrayLiteral("XRANGE"), start, QByteArrayLiteral("+"), QByteArrayLiteral("COUNT"),
           QByteArray::number(count)},
          context, std::move(done));
}

void AuditLog::range(const QByteArray& user, Command command, Context context,
                     Callback<std::vector<AuditEntry>> done) const
{
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) mutable {
        command.insert(1, streamKey(layout, user));
        readEntries(client, command, context, done);
    });
}

void AuditLog::readEntries(Client* client, const Command& command, Context context,
                           Callback<std::vector<AuditEntry>> done)
{
    if (client->isTwemproxy()) {
        const bool newestFirst = command.value(0) == "XREVRANGE";
        const qsizetype count = command.value(command.size() - 1).toLongLong();
        client->executeOnEveryPrimary(command, nullptr, [=](std::vector<Result<Reply>> replies) {
            std::vector<AuditEntry> entries;
            for (const Result<Reply>& reply : replies) {
                if (!reply) {
                    deliver(context, done, Result<std::vector<AuditEntry>>(reply.error()));
                    return;
                }
                for (const Reply& element : reply->elements)
                    entries.push_back(AuditEntry::fromStreamEntry(element));
            }
            std::sort(entries.begin(), entries.end(), [newestFirst](const AuditEntry& a, const AuditEntry& b) {
                return newestFirst ? a.newerThan(b) : b.newerThan(a);
            });
            if (count > 0 && qsizetype(entries.size()) > count)
                entries.resize(size_t(count));
            deliver(context, done, Result<std::vector<AuditEntry>>(std::move(entries)));
        });
        return;
    }
    client->execute(command, nullptr, [context, done](Result<Reply> reply) {
        if (!reply) {
            deliver(context, done, Result<std::vector<AuditEntry>>(reply.error()));
            return;
        }
        std::vector<AuditEntry> entries;
        entries.reserve(reply->elements.size());
        for (const Reply& element : reply->elements)
            entries.push_back(AuditEntry::fromStreamEntry(element));
        deliver(context, done, Result<std::vector<AuditEntry>>(std::move(entries)));
    });
}

void AuditLog::record(const AuditEntry& entry, Context context, Callback<Unit> done) const
{
    Command command{QByteArrayLiteral("XADD"),
                    QByteArrayLiteral("MAXLEN"),
                    QByteArrayLiteral("~"),
                    QByteArray::number(kGlobalMaxLen),
                    QByteArrayLiteral("*"),
                    QByteArrayLiteral("event"),
                    entry.event.toUtf8(),
                    QByteArrayLiteral("user"),
                    entry.user,
                    QByteArrayLiteral("action"),
                    entry.action,
                    QByteArrayLiteral("actor"),
                    entry.actor.toUtf8(),
                    QByteArrayLiteral("reason"),
                    entry.reason.toUtf8(),
                    QByteArrayLiteral("until_ms"),
                    QByteArray::number(entry.untilMs)};
    if (!entry.detail.isEmpty())
        command << QByteArrayLiteral("detail") << entry.detail.toUtf8();
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) mutable {
        command.insert(1, streamKey(layout, {}));
        client->execute(command, nullptr, [context, done](Result<Reply> reply) {
            deliver(context, done, reply ? Status(Unit{}) : Status(reply.error()));
        });
    });
}

} // namespace tollgate
