#include "core/scripts/Slowlog.h"

#include "core/scripts/ScriptLibrary.h"

namespace tollgate {

namespace {

QString scriptOf(const QList<QByteArray>& arguments)
{
    if (arguments.size() < 2)
        return QString();
    const QByteArray command = arguments.first().toUpper();
    if (command != "EVALSHA" && command != "EVALSHA_RO")
        return QString();
    const QByteArray sha = arguments.at(1).toLower();
    for (const ScriptInfo& script : ScriptLibrary::instance().scripts())
        if (script.sha1 == sha)
            return script.name;
    return QString();
}

} // namespace

std::vector<SlowlogEntry> parseSlowlog(const Reply& reply)
{
    std::vector<SlowlogEntry> entries;
    if (!reply.isArray())
        return entries;
    entries.reserve(reply.elements.size());
    for (const Reply& item : reply.elements) {
        // id, time, duration, [args], client address, client name (Redis >= 4)
        if (!item.isArray() || item.elements.size() < 4)
            continue;
        SlowlogEntry entry;
        entry.id = item.elements[0].toInteger().value_or(0);
        entry.timeSec = item.elements[1].toInteger().value_or(0);
        entry.durationUs = item.elements[2].toInteger().value_or(0);
        for (const Reply& argument : item.elements[3].elements)
            entry.arguments << argument.toBytes();
        if (item.elements.size() >= 6) {
            entry.client = item.elements[4].toBytes();
            entry.clientName = item.elements[5].toBytes();
        }
        entry.script = scriptOf(entry.arguments);
        entries.push_back(std::move(entry));
    }
    return entries;
}

void readSlowlog(Client* client, int count, Context context,
                 Callback<std::vector<SlowlogEntry>> done)
{
    client->execute(
        {QByteArrayLiteral("SLOWLOG"), QByteArrayLiteral("GET"),
         QByteArray::number(qMax(1, count))},
        nullptr, [context, done](Result<Reply> reply) {
            if (!reply) {
                deliver(context, done, Result<std::vector<SlowlogEntry>>(reply.error()));
                return;
            }
            deliver(context, done, Result<std::vector<SlowlogEntry>>(parseSlowlog(*reply)));
        });
}

} // namespace tollgate
