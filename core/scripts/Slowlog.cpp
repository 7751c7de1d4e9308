#include "core/scripts/Slowlog.h"

#include "core/scripts/ScriptLibrary.h"

#include <algorithm>
#include <iterator>

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
    // Each node keeps its own slow log: on a cluster every primary's, merged newest first.
    const int wanted = qMax(1, count);
    client->executeOnEveryPrimary(
        {QByteArrayLiteral("SLOWLOG"), QByteArrayLiteral("GET"), QByteArray::number(wanted)},
        nullptr, [context, done, wanted](std::vector<Result<Reply>> replies) {
            std::vector<SlowlogEntry> entries;
            for (const Result<Reply>& reply : replies) {
                if (!reply) {
                    deliver(context, done, Result<std::vector<SlowlogEntry>>(reply.error()));
                    return;
                }
                std::vector<SlowlogEntry> node = parseSlowlog(*reply);
                std::move(node.begin(), node.end(), std::back_inserter(entries));
            }
            std::stable_sort(entries.begin(), entries.end(),
                             [](const SlowlogEntry& a, const SlowlogEntry& b) {
                                 return a.timeSec > b.timeSec;
                             });
            if (entries.size() > size_t(wanted))
                entries.resize(size_t(wanted));
            deliver(context, done, Result<std::vector<SlowlogEntry>>(std::move(entries)));
        });
}

} // namespace tollgate
