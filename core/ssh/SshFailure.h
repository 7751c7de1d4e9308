#pragma once

#include "tollgate/Result.h"

#include <QByteArray>
#include <QString>

namespace tollgate {

/// The one place that reads OpenSSH's messages: what the client wrote on stderr before it
/// gave up, turned into a typed error. A host key that is unknown or changed, and a refused
/// login, are ErrorKind::Auth (never retried by the tunnel); anything else (unreachable,
/// a name that does not resolve, a dropped session) is ErrorKind::Io.
Error classifySshFailure(const QString& destination, const QByteArray& sshLog);

/// When the last line of a running ssh's log says a forwarded connection could not be opened
/// on the server's side ("channel 3: open failed: connect failed: Connection refused"), the
/// reason ("connect failed: Connection refused"); else empty.
QString forwardFailure(const QByteArray& sshLog);

} // namespace tollgate
