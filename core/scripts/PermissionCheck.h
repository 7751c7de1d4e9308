#pragma once

#include "tollgate/Client.h"

namespace tollgate {

/// Whether the connected ACL user may run each of `commands` (command, keys and channels as
/// the ACL sees them), asked with can.lua (redis.acl_check_cmd), which runs none of them.
/// Read-only: EVALSHA_RO, and EVALSHA for users whose ACL predates EVALSHA_RO, so it works for
/// users who may not run ACL DRYRUN. Delivers one bool per command, in order, or the error that
/// kept the server from answering (NoPerm when the user may not run scripts at all).
void checkCommands(Client* client, const QList<Command>& commands, Context context,
                   Callback<QList<bool>> done);

} // namespace tollgate
