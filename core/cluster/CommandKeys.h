#pragma once

#include "core/redis/CommandBuilder.h"
#include "core/redis/RespCodec.h"
#include "tollgate/Result.h"

#include <optional>

namespace tollgate {

/// The keys a command touches, as a cluster client must know them to route it: the numkeys
/// keys of EVAL/EVALSHA(_RO)/FCALL, every argument of DEL/EXISTS/UNLINK/TOUCH/MGET, the keys
/// of MSET, none for server commands (PING, INFO, SCRIPT, PUBLISH...), else the first argument.
QList<QByteArray> commandKeys(const Command& command);

/// The one slot every key of `command` lives in; nullopt for a command without keys (any node
/// may run it). A command whose keys span slots is refused here, before anything is sent: a
/// cluster would answer CROSSSLOT, and a script could half-run on the wrong node.
Result<std::optional<int>> commandSlot(const Command& command);

/// The arguments of a command CommandBuilder encoded (a RESP array of bulk strings), for
/// routing a prepared command; Protocol error for anything else.
Result<Command> decodeCommand(const EncodedCommand& command);

} // namespace tollgate
