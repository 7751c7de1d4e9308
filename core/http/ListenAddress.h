#pragma once

#include "tollgate/Result.h"

#include <QHostAddress>
#include <utility>

namespace tollgate {

/// Where a server listens: "127.0.0.1:9464", "[::1]:9464", ":9464" (every address),
/// "0.0.0.0:9464", "localhost:80". InvalidInput with an example otherwise.
Result<std::pair<QHostAddress, quint16>> parseListenAddress(const QString& text);

} // namespace tollgate
