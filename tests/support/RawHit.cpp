#include "tests/support/RawHit.h"

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/CoreFixture.h"

namespace tollgate::test {

namespace {

Result<QByteArray> scriptSha(const QString& name)
{
    const ScriptInfo* script = ScriptLibrary::instance().find(name);
    if (!script)
        return Error{ErrorKind::NotFound, QStringLiteral("no %1 script").arg(name)};
    return script->sha1;
}

} // namespace

QByteArray RawHit::stateKey(const KeySchema& schema, int window) const
{
    const Algorithm alg = algorithmFromName(algorithm).value_or(Algorithm::FixedWindow);
    return schema.stateKey(user, action, alg, windows[window].second);
}

Result<RawHitReply> runRawHit(Client& client, const KeyLayout& layout, const RawHit& hit)
{
    const auto sha = scriptSha(QStringLiteral("hit"));
    if (!sha)
        return sha.error();
    const KeySchema& s = layout.schema();
    Command keys{s.userBanKey(hit.user), s.actionBanKey(hit.user, hit.action),
                 s.overridesKey(hit.user), s.userAuditKey(hit.user),
                 layout.auditMirror(s.userAuditKey(hit.user))};
    Command args{hit.mode, hit.algorithm, hit.cost, hit.countDenied, "0", hit.banMs,
                 "",       hit.offsets,   hit.user, hit.action,      "",  hit.align};
    for (int i = 0; i < hit.windows.size(); ++i) {
        keys << hit.stateKey(s, i);
        args << QByteArray::number(hit.windows[i].first)
             << QByteArray::number(hit.windows[i].second);
    }
    const auto reply =
        client.executeSync(Command{"EVALSHA", *sha, QByteArray::number(keys.size())} + keys + args);
    if (!reply)
        return reply.error();
    // 7 elements; a peek's 11 ([8], [9] and the window before the hit)
    const size_t size = reply->elements.size();
    if (size != (hit.mode == "peek" ? 11 : 7))
        return Error{ErrorKind::Protocol, QStringLiteral("hit.lua: ") + reply->toDisplayString()};
    const auto at = [&](int i) { return reply->elements[size_t(i)].toInteger().value_or(-99); };
    RawHitReply parsed{at(0) == 1, reply->elements[1].toBytes(), at(2), at(3), at(4), at(5), at(6)};
    if (size == 11) {
        parsed.countNow = at(9);
        parsed.resetNowMs = at(10);
    }
    return parsed;
}

Result<Reply> runRawBan(Client& client, const KeyLayout& layout, const QByteArray& user,
                        const QByteArray& action, qint64 durationMs)
{
    const auto sha = scriptSha(QStringLiteral("ban"));
    if (!sha)
        return sha.error();
    const KeySchema& s = layout.schema();
    const QByteArray audit = s.userAuditKey(user);
    return client.executeSync({"EVALSHA", *sha, "3", s.actionBanKey(user, action), audit,
                               layout.auditMirror(audit), user, action, "test", "test ban",
                               QByteArray::number(durationMs), "0", ""});
}

bool loadRawScripts(CoreFixture& core)
{
    for (const char* name : {"hit", "ban"}) {
        const ScriptInfo* script = ScriptLibrary::instance().find(QString::fromLatin1(name));
        const auto replies = script ? core.onEveryPrimary({"SCRIPT", "LOAD", script->source})
                                    : std::vector<Result<Reply>>{};
        if (replies.empty())
            return false;
        for (const auto& reply : replies)
            if (!reply)
                return false;
    }
    return true;
}

std::unique_ptr<Client> connectSlowAclUser(CoreFixture& core, int patterns)
{
    Command setUser{"ACL", "SETUSER", "slow", "reset", "on", ">pw", "+@all", "&*"};
    // "*" first: each pattern is tried at every position of the key before it fails
    for (int i = 0; i < patterns; ++i)
        setUser << "~*zq" + QByteArray::number(i) + "q*";
    setUser << "~tg:*";
    const auto replies = core.onEveryPrimary(setUser);
    if (replies.empty())
        return nullptr;
    for (const auto& reply : replies)
        if (!reply)
            return nullptr;
    ConnectionOptions options = core.options();
    options.user = QStringLiteral("slow");
    options.password = QStringLiteral("pw");
    return core.connect(options);
}

} // namespace tollgate::test
