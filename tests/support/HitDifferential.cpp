#include "tests/support/HitDifferential.h"

#include "tests/support/TestEnv.h"

#include <QFile>

namespace tollgate::test {

namespace {

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// SCRIPT LOAD: the SHA, or empty (and the reply in *failure).
QByteArray loadScript(RedisServer& redis, const QByteArray& source, QByteArray* failure)
{
    const QByteArray loaded = redis.command({"SCRIPT", "LOAD", source});
    if (!loaded.startsWith('$')) {
        *failure = "SCRIPT LOAD failed: " + loaded;
        return {};
    }
    return loaded.mid(loaded.indexOf('\n') + 1).trimmed();
}

} // namespace

QByteArray addRefusingUsers(RedisServer& redis)
{
    const QList<QPair<QByteArray, QList<QByteArray>>> refusing{
        {"noset", {"-set"}},   {"noxadd", {"-xadd"}}, {"nopexpire", {"-pexpire", "-pexpireat"}},
        {"nohset", {"-hset"}}, {"nozadd", {"-zadd"}}, {"nozrem", {"-zremrangebyscore"}}};
    for (const auto& [name, refused] : refusing) {
        const QByteArray reply = redis.command(QList<QByteArray>{"ACL", "SETUSER", name, "on",
                                                                 ">" + kRefusingPassword, "~*", "&*",
                                                                 "+@all"} +
                                               refused);
        if (reply != "+OK\r\n")
            return "ACL SETUSER " + name + " failed: " + reply;
    }
    return {};
}

QByteArray DifferentialStep::description() const
{
    return operation + " KEYS " + keys.join(' ') + " ARGV " + args.join(' ');
}

QByteArray HitDifferential::load(RedisServer& redis)
{
    const QByteArray candidatePath = qgetenv("TOLLGATE_DIFF_CANDIDATE");
    const QByteArray wrapper = readFile(sourcePath(QStringLiteral("tests/reference/differential.lua")));
    const QByteArray reference =
        readFile(sourcePath(QStringLiteral("tests/reference/hit_reference.lua")));
    m_candidate = readFile(candidatePath.isEmpty() ? luaScriptPath(QStringLiteral("hit.lua"))
                                                   : QString::fromLocal8Bit(candidatePath));
    const QByteArray ban = readFile(luaScriptPath(QStringLiteral("ban.lua")));
    const QByteArray unban = readFile(luaScriptPath(QStringLiteral("unban.lua")));
    if (wrapper.isEmpty() || reference.isEmpty() || m_candidate.isEmpty() || ban.isEmpty() ||
        unban.isEmpty())
        return "a script file could not be read";
    const QByteArray marker = "--@BODIES@";
    if (!wrapper.contains(marker))
        return "differential.lua has no " + marker + " line";
    const auto body = [](const QByteArray& name, const QByteArray& source) -> QByteArray {
        return "local function " + name + "(KEYS, ARGV)\n" + source + "\nend\n";
    };
    QByteArray script = wrapper;
    const QByteArray bodies = body("run_reference", reference) + body("run_candidate", m_candidate) +
                              body("run_ban", ban) + body("run_unban", unban);
    script.replace(marker, bodies);
    QByteArray failure;
    m_sha = loadScript(redis, script, &failure);
    m_candidateSha = loadScript(redis, m_candidate, &failure);
    m_referenceSha = loadScript(redis, reference, &failure);
    return failure;
}

DifferentialOutcome HitDifferential::run(RedisServer& redis, const DifferentialStep& step,
                                         const QList<QByteArray>& compared) const
{
    QList<QByteArray> command{"EVALSHA", m_sha, QByteArray::number(step.keys.size())};
    command << step.keys << step.operation << QByteArray::number(compared.size()) << compared
            << step.args;
    const QByteArray reply = redis.command(command, 20000);
    if (!reply.startsWith('$'))
        return {"wrapper failed: " + reply, {}, {}};
    const QByteArray text = reply.mid(reply.indexOf('\n') + 1).chopped(2);
    if (!text.startsWith("same "))
        return {text, {}, {}};
    const int pathEnd = text.indexOf(' ', 5);
    return {{}, text.mid(5, pathEnd - 5), text.mid(pathEnd + 1)};
}

} // namespace tollgate::test
