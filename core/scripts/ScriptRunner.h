#pragma once

#include "core/redis/Client.h"

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

/// Which library scripts the server has cached (SCRIPT EXISTS), in ScriptLibrary order.
void scriptsLoaded(Client* client, Context context, Callback<QList<bool>> done);

/// SCRIPT LOAD of every library script, e.g. to warm a new server.
void loadAllScripts(Client* client, Context context, Callback<Unit> done);

} // namespace tollgate
