#include "core/client/TwemproxyCommands.h"

#include <QByteArray>
#include <algorithm>
#include <array>

namespace tollgate {

namespace {

// Nutcracker 0.5's commands with a key (its request parser), in lower case and sorted, plus
// the connection commands it answers or forwards itself. integration.TwemproxyPool checks a
// sample against the real proxy.
constexpr std::array<const char*, 114> kForwarded = {
    "append", "auth", "bitcount", "bitpos", "decr", "decrby", "del", "dump", "eval", "evalsha",
    "exists", "expire", "expireat", "geoadd", "geodist", "geohash", "geopos", "georadius",
    "georadiusbymember", "get", "getbit", "getrange", "getset", "hdel", "hexists", "hget",
    "hgetall", "hincrby", "hincrbyfloat", "hkeys", "hlen", "hmget", "hmset", "hscan", "hset",
    "hsetnx", "hstrlen", "hvals", "incr", "incrby", "incrbyfloat", "lindex", "linsert", "llen",
    "lpop", "lpush", "lpushx", "lrange", "lrem", "lset", "ltrim", "mget", "mset", "persist",
    "pexpire", "pexpireat", "pfadd", "pfcount", "pfmerge", "ping", "psetex", "pttl", "quit",
    "restore", "rpop", "rpoplpush", "rpush", "rpushx", "sadd", "scard", "sdiff", "sdiffstore",
    "set", "setbit", "setex", "setnx", "setrange", "sinter", "sinterstore", "sismember",
    "smembers", "smove", "sort", "spop", "srandmember", "srem", "sscan", "strlen", "sunion",
    "sunionstore", "ttl", "type", "unlink", "zadd", "zcard", "zcount", "zincrby", "zinterstore",
    "zlexcount", "zrange", "zrangebylex", "zrangebyscore", "zrank", "zrem", "zremrangebylex",
    "zremrangebyrank", "zremrangebyscore", "zrevrange", "zrevrangebylex", "zrevrangebyscore",
    "zrevrank", "zscan", "zscore", "zunionstore"};

// Keyed reads it does not forward that a script may make: sent as a script whose one key is
// theirs, so the proxy takes them to the key's backend, which answers the same reply. Reads
// only: a write must go by one of the library's scripts, with its audit entry.
constexpr std::array<const char*, 4> kReadsAsScript = {"pexpiretime", "xlen", "xrange",
                                                        "xrevrange"};
constexpr const char* kReadScript = "local args = {ARGV[1], KEYS[1]} "
                                    "for i = 2, #ARGV do args[#args + 1] = ARGV[i] end "
                                    "return redis.call(unpack(args))";

bool lessCaseless(const char* a, QByteArrayView b)
{
    return QByteArrayView(a).compare(b, Qt::CaseInsensitive) < 0;
}

bool named(QByteArrayView name, const char* what)
{
    return name.compare(QByteArrayView(what), Qt::CaseInsensitive) == 0;
}

// Reads "<marker><number>\r\n" at *at; -1 when it is not there.
qint64 header(const QByteArray& bytes, char marker, qsizetype* at)
{
    const qsizetype end = bytes.indexOf("\r\n", *at);
    if (end < 0 || *at >= bytes.size() || bytes.at(*at) != marker)
        return -1;
    bool ok = false;
    const qint64 value = QByteArrayView(bytes).sliced(*at + 1, end - *at - 1).toLongLong(&ok);
    *at = end + 2;
    return ok ? value : -1;
}

} // namespace

Status twemproxyForwards(QByteArrayView name, qint64 keyCount)
{
    const auto found = std::lower_bound(kForwarded.begin(), kForwarded.end(), name, lessCaseless);
    const bool forwarded = found != kForwarded.end() && named(name, *found);
    const QString command = QString::fromLatin1(name.toByteArray().toUpper());
    if (!forwarded)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("Twemproxy does not forward ") + command +
                         QStringLiteral(" (it would close the connection): what needs a whole "
                                        "server goes to the pool's backends")};
    if ((named(name, "eval") || named(name, "evalsha")) && keyCount < 1)
        return Error{ErrorKind::InvalidInput, QStringLiteral("Twemproxy forwards ") + command +
                                                  QStringLiteral(" only with at least one key")};
    return Unit{};
}

std::optional<Command> decodeCommand(const QByteArray& encoded, qsizetype maxArgs)
{
    qsizetype at = 0;
    const qint64 count = header(encoded, '*', &at);
    if (count < 1)
        return std::nullopt;
    Command args;
    args.reserve(std::min<qint64>(count, maxArgs));
    for (qint64 i = 0; i < count && i < maxArgs; ++i) {
        const qint64 length = header(encoded, '$', &at);
        if (length < 0 || at + length + 2 > encoded.size())
            return std::nullopt;
        args << encoded.mid(at, length);
        at += length + 2;
    }
    return args;
}

Status twemproxyForwards(const QByteArray& encoded)
{
    const std::optional<Command> args = decodeCommand(encoded, 3);
    if (!args)
        return Error{ErrorKind::InvalidInput, QStringLiteral("not a RESP command")};
    const QByteArray& name = args->front();
    const bool script = named(name, "eval") || named(name, "evalsha");
    return twemproxyForwards(name, script ? args->value(2).toLongLong() : -1);
}

Result<EncodedCommand> twemproxyCommand(EncodedCommand command)
{
    // The name and a script's numkeys are all the check needs; a read-only script call is
    // read whole, to be written again under the name the proxy takes.
    std::optional<Command> args = decodeCommand(command.bytes(), 3);
    if (!args)
        return Error{ErrorKind::InvalidInput, QStringLiteral("not a RESP command")};
    const bool readOnly = named(args->front(), "evalsha_ro") || named(args->front(), "eval_ro");
    if (readOnly) {
        args = decodeCommand(command.bytes());
        if (!args)
            return Error{ErrorKind::InvalidInput, QStringLiteral("not a RESP command")};
        args->front().chop(3); // the same script, allowed to write: the proxy has no _RO form
    }
    // Reads the proxy does not forward but a script may make, on the key's backend: the same
    // reply. TIME has no key; any backend's clock will do.
    if (named(args->front(), "time") && args->size() == 1)
        return EncodedCommand::fromArgs({QByteArrayLiteral("EVAL"),
                                         QByteArrayLiteral("return redis.call('TIME')"),
                                         QByteArrayLiteral("1"), QByteArrayLiteral("{time}")});
    const bool readAsScript =
        std::any_of(kReadsAsScript.begin(), kReadsAsScript.end(),
                    [&](const char* read) { return named(args->front(), read); });
    if (readAsScript && args->size() >= 2) {
        Command script{QByteArrayLiteral("EVAL"), QByteArray(kReadScript), QByteArrayLiteral("1")};
        if (args->size() == 3) // the check read three arguments: read them all
            args = decodeCommand(command.bytes());
        if (!args)
            return Error{ErrorKind::InvalidInput, QStringLiteral("not a RESP command")};
        script << args->at(1) << args->front() << args->mid(2);
        return EncodedCommand::fromArgs(script);
    }
    const QByteArray& name = args->front();
    const bool script = named(name, "eval") || named(name, "evalsha");
    if (const Status forwarded = twemproxyForwards(name, script ? args->value(2).toLongLong() : -1);
        !forwarded)
        return forwarded.error();
    return readOnly ? EncodedCommand::fromArgs(*args) : std::move(command);
}

} // namespace tollgate
