#include "core/scripts/ScriptRunner.h"

#include "core/client/ClientInternals.h"
#include "core/client/TwemproxyCommands.h"
#include "core/scripts/ScriptLibrary.h"

namespace tollgate {

namespace {

void run(const QByteArray& evalsha, Client* client, const QString& name, const Command& keys,
         const Command& args, Context context, Callback<Reply> done)
{
    const ScriptInfo* script = ScriptLibrary::instance().find(name);
    if (!script) {
        deliver(context, done,
                Result<Reply>(ErrorKind::NotFound, QStringLiteral("no script named ") + name));
        return;
    }
    CommandBuilder builder(3 + keys.size() + args.size());
    builder.add(evalsha).add(script->sha1).addNumber(keys.size());
    for (const QByteArray& key : keys)
        builder.add(key);
    for (const QByteArray& arg : args)
        builder.add(arg);
    auto built = std::move(builder).finish();
    if (!built) {
        deliver(context, done, Result<Reply>(built.error()));
        return;
    }
    client->addScriptWork(estimatedScriptWork(keys.size()));
    // Intermediate steps run on the worker thread (null context); only the final result
    // is delivered to the caller's context.
    const EncodedCommand command = std::move(*built);
    ClientInternals::execute(*client, command, nullptr, [=](Result<Reply> first) {
        if (first || first.error().kind != ErrorKind::NoScript) {
            deliver(context, done, std::move(first));
            return;
        }
        reloadAndRetry(client, *script, command, context, done);
    });
}

} // namespace

void runScript(Client* client, const QString& name, const Command& keys, const Command& args,
               Context context, Callback<Reply> done)
{
    run(QByteArrayLiteral("EVALSHA"), client, name, keys, args, context, std::move(done));
}

void runReadOnlyScript(Client* client, const QString& name, const Command& keys,
                       const Command& args, Context context, Callback<Reply> done)
{
    run(QByteArrayLiteral("EVALSHA_RO"), client, name, keys, args, context, std::move(done));
}

void reloadAndRetry(Client* client, const ScriptInfo& script, EncodedCommand command,
                    Context context, Callback<Reply> done)
{
    if (client->isTwemproxy()) {
        // The same call by EVAL with the script's text: the backend the key hashes to runs
        // it and caches it under the same SHA1, so the next EVALSHA there finds it.
        std::optional<Command> args = decodeCommand(command.bytes());
        if (!args || args->size() < 3) {
            deliver(context, done,
                    Result<Reply>(ErrorKind::InvalidInput, QStringLiteral("not a script call")));
            return;
        }
        (*args)[0] = QByteArrayLiteral("EVAL");
        (*args)[1] = script.source;
        client->execute(*args, nullptr,
                        [=](Result<Reply> evaluated) { deliver(context, done, std::move(evaluated)); });
        return;
    }
    client->execute({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), script.source},
                    nullptr, [=](Result<Reply> loaded) {
                        if (!loaded) {
                            deliver(context, done, std::move(loaded));
                            return;
                        }
                        ClientInternals::execute(*client, command, nullptr,
                                                 [=](Result<Reply> retried) {
                                                     deliver(context, done, std::move(retried));
                                                 });
                    });
}

void scriptsLoaded(Client* client, Context context, Callback<QList<bool>> done)
{
    Command command{QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("EXISTS")};
    for (const ScriptInfo& script : ScriptLibrary::instance().scripts())
        command << script.sha1;
    client->execute(command, nullptr, [=](Result<Reply> reply) {
        if (!reply) {
            deliver(context, done, Result<QList<bool>>(reply.error()));
            return;
        }
        QList<bool> loaded;
        for (const Reply& element : reply->elements)
            loaded << (element.integer == 1);
        deliver(context, done, Result<QList<bool>>(loaded));
    });
}

void loadAllScripts(Client* client, Context context, Callback<Unit> done)
{
    const auto& scripts = ScriptLibrary::instance().scripts();
    auto remaining = std::make_shared<int>(scripts.size());
    auto failed = std::make_shared<std::optional<Error>>();
    if (scripts.isEmpty()) {
        deliver(context, done, Status(Unit{}));
        return;
    }
    for (const ScriptInfo& script : scripts) {
        client->execute({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), script.source},
                        nullptr, [=](Result<Reply> reply) {
                            if (!reply && !*failed)
                                *failed = reply.error();
                            if (--*remaining == 0)
                                deliver(context, done, *failed ? Status(**failed) : Status(Unit{}));
                        });
    }
}

} // namespace tollgate
