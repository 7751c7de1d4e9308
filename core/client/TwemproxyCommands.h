#pragma once

#include "core/redis/CommandBuilder.h"
#include "tollgate/Result.h"

#include <QByteArrayView>
#include <optional>

namespace tollgate {

/// Whether nutcracker (Twemproxy 0.5) forwards a command: it closes the client's connection on
/// any other, which would lose every command pipelined behind it. `name` is the command's first
/// argument in any case; `keyCount` is EVAL/EVALSHA's numkeys (they are forwarded only with at
/// least one key, to the backend of the first). An error naming what to do instead when not.
Status twemproxyForwards(QByteArrayView name, qint64 keyCount = -1);
/// The same for a command as it goes on the wire (a RESP array of bulk strings).
Status twemproxyForwards(const QByteArray& encoded);

/// The command as the proxy takes it: EVALSHA_RO and EVAL_RO (which it does not forward) as
/// EVALSHA and EVAL, the same script; TIME and PEXPIRETIME as a script that runs them; anything
/// else it does not forward refused.
Result<EncodedCommand> twemproxyCommand(EncodedCommand command);

/// The arguments of an encoded command (its first maxArgs); nullopt when it is not a RESP
/// array of bulk strings.
std::optional<Command> decodeCommand(const QByteArray& encoded, qsizetype maxArgs = 1 << 30);

} // namespace tollgate
