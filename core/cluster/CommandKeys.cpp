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

namespace {

// The number after `type` at `at`, up to its \r\n; moves `at` past the \r\n. -1 when malformed.
qint64 readHeader(const QByteArray& bytes, qsizetype& at, char type)
{
    if (at >= bytes.size() || bytes[at] != type)
        return -1;
    const qsizetype end = bytes.indexOf("\r\n", at);
    if (end < 0)
        return -1;
    bool ok = false;
    const qint64 value = bytes.mid(at + 1, end - at - 1).toLongLong(&ok);
    at = end + 2;
    return ok && value >= 0 ? value : -1;
}

} // namespace

Result<Command> decodeCommand(const EncodedCommand& command)
{
    const QByteArray& bytes = command.bytes();
    const Error malformed{ErrorKind::Protocol, QStringLiteral("not an encoded command")};
    qsizetype at = 0;
    const qint64 count = readHeader(bytes, at, '*');
    if (count < 0)
        return malformed;
    Command args;
    args.reserve(qsizetype(count));
    for (qint64 i = 0; i < count; ++i) {
        const qint64 length = readHeader(bytes, at, '$');
        if (length < 0 || at + length + 2 > bytes.size())
            return malformed;
        args << bytes.mid(at, qsizetype(length));
        at += qsizetype(length) + 2;
    }
    if (at != bytes.size())
        return malformed;
    return args;
}

} // namespace tollgate
