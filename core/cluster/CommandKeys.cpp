#include "core/cluster/CommandKeys.h"

#include "core/cluster/KeySlot.h"

#include <QSet>

namespace tollgate {

namespace {

// Commands that name no key: served by any node (SCAN is per node: see ClusterScan).
bool isKeyless(const QByteArray& name)
{
    static const QSet<QByteArray> keyless{
        "PING",       "INFO",        "SCRIPT",       "CLUSTER", "TIME",    "PUBLISH", "SLOWLOG",
        "CONFIG",     "CLIENT",      "ACL",          "DBSIZE",  "COMMAND", "HELLO",   "AUTH",
        "SELECT",     "READONLY",    "ASKING",       "ECHO",    "MEMORY",  "LATENCY", "SUBSCRIBE",
        "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SCAN"};
    return keyless.contains(name);
}

} // namespace

QList<QByteArray> commandKeys(const Command& command)
{
    if (command.size() < 2)
        return {};
    const QByteArray name = command.front().toUpper();
    if (isKeyless(name))
        return {};
    if (name == "EVAL" || name == "EVALSHA" || name == "EVAL_RO" || name == "EVALSHA_RO" ||
        name == "FCALL" || name == "FCALL_RO") {
        const int numKeys = command.size() > 2 ? command[2].toInt() : 0;
        return numKeys > 0 ? command.mid(3, numKeys) : QList<QByteArray>{};
    }
    if (name == "DEL" || name == "EXISTS" || name == "UNLINK" || name == "TOUCH" || name == "MGET")
        return command.mid(1);
    if (name == "MSET" || name == "MSETNX") {
        QList<QByteArray> keys;
        for (qsizetype i = 1; i < command.size(); i += 2)
            keys << command[i];
        return keys;
    }
    return {command[1]};
}

Result<std::optional<int>> commandSlot(const Command& command)
{
    std::optional<int> slot;
    for (const QByteArray& key : commandKeys(command)) {
        const int own = keySlot(key);
        if (slot && *slot != own)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("%1 touches keys in different cluster slots (%2 and %3); "
                                        "keys used together need one hash tag, e.g. {user}")
                             .arg(QString::fromUtf8(command.front()))
                             .arg(*slot)
                             .arg(own)};
        slot = own;
    }
    return slot;
}

} // namespace tollgate
