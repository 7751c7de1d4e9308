#pragma once

#include <QByteArray>
#include <QString>

namespace tollgate {

/// Sends one inline command ("PING", "CLUSTER INFO") to a plain-TCP server without a password
/// and returns its raw reply ("+PONG\r\n", "$42\r\n...\r\n"), or empty on failure or after
/// `timeoutMs`. Blocking, on a socket of its own: for the demo's start-up checks, where the
/// client under core/redis is not running yet.
QByteArray rawCommand(const QString& host, quint16 port, const QByteArray& inlineCommand,
                      int timeoutMs = 1000);

} // namespace tollgate
