#include "core/scripts/PermissionCheck.h"

#include "core/client/ClientInternals.h"
#include "core/client/TwemproxyBackends.h"
#include "core/scripts/ScriptRunner.h"

namespace tollgate {

namespace {

Result<QList<bool>> answers(const Result<Reply>& reply, qsizetype expected)
{
    if (!reply)
        return reply.error();
    if (!reply->isArray() || qsizetype(reply->elements.size()) != expected)
        return Error{ErrorKind::Protocol, QStringLiteral("can.lua answered %1 checks, %2 asked")
                                              .arg(reply->elements.size())
                                              .arg(expected)};
    QList<bool> allowed;
    for (const Reply& element : reply->elements)
        allowed << (element.toInteger().value_or(0) == 1);
    return allowed;
}

} // namespace

void checkCommands(Client* client, const QList<Command>& commands, Context context,
                   Callback<QList<bool>> done)
{
    Command args;
    for (const Command& command : commands)
        args << QByteArray::number(command.size()) << command;
    const qsizetype expected = commands.size();
    if (TwemproxyBackends* backends = ClientInternals::twemproxyBackends(*client)) {
        // The proxy forwards no keyless script, and it reaches every backend as one user of
        // its own (redis_auth): ask the first backend, or, with none known, answer "allowed"
        // and let the write scripts' own ACL checks refuse.
        if (!backends->isEmpty()) {
            checkCommands(backends->at(0), commands, context, std::move(done));
            return;
        }
        deliver(context, done, Result<QList<bool>>(QList<bool>(expected, true)));
        return;
    }
    runReadOnlyScript(client, QStringLiteral("can"), {}, args, nullptr, [=](Result<Reply> ro) {
        if (ro || ro.error().kind != ErrorKind::NoPerm) {
            deliver(context, done, answers(ro, expected));
            return;
        }
        runScript(client, QStringLiteral("can"), {}, args, nullptr,
                  [=](Result<Reply> rw) { deliver(context, done, answers(rw, expected)); });
    });
}

} // namespace tollgate
