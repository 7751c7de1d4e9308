#pragma once

#include "core/redis/CommandBuilder.h"
#include "core/scripts/ScriptLibrary.h"
#include "tollgate/Client.h"

namespace tollgate {

/// Runs a library script by EVALSHA. On NOSCRIPT (SCRIPT FLUSH, restart, failover) the
/// script is loaded again with SCRIPT LOAD and the call retried once; callers never see it.
/// Keys and args are raw bytes; the reply is the script's reply as is.
void runScript(Client* client, const QString& name, const Command& keys, const Command& args,
               Context context, Callback<Reply> done);

/// The same with EVALSHA_RO (Redis 7), for calls that write nothing (hit.lua peek, repair.lua
/// dry run): a read-only ACL user (`+evalsha_ro`, see README "ACL roles") may run them, and
/// Redis refuses any write the script would attempt.
void runReadOnlyScript(Client* client, const QString& name, const Command& keys,
                       const Command& args, Context context, Callback<Reply> done);

/// The NOSCRIPT recovery of runScript for a call already encoded (a prepared hit): after the
/// first attempt failed with NoScript, SCRIPT LOAD `script` and send `command` once more.
/// For callers that send the first attempt themselves, to keep one callback layer per call.
void reloadAndRetry(Client* client, const ScriptInfo& script, EncodedCommand command,
                    Context context, Callback<Reply> done);

/// What a script call adds to the client's command-rate figure: about two commands per key
/// (read and write) plus TIME and a publish. An estimate.
inline quint64 estimatedScriptWork(qsizetype keys)
{
    return quint64(2 * keys + 2);
}

/// Which library scripts the server has cached (SCRIPT EXISTS), in ScriptLibrary order.
void scriptsLoaded(Client* client, Context context, Callback<QList<bool>> done);

/// SCRIPT LOAD of every library script, e.g. to warm a new server.
void loadAllScripts(Client* client, Context context, Callback<Unit> done);

} // namespace tollgate
