#pragma once

#include <QMetaType>
#include <QString>

namespace tollgate {

enum class ConnectionState {
    Disconnected, // not opened yet, or closed
    Connecting,   // first attempt: commands wait for it
    Connected,    // handshake done (AUTH, SELECT)
    Reconnecting, // lost or failed; retrying with backoff, commands fail fast
};

QString connectionStateName(ConnectionState state);

} // namespace tollgate

Q_DECLARE_METATYPE(tollgate::ConnectionState)
