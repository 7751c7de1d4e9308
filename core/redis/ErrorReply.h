#pragma once

#include "tollgate/Result.h"

#include <QByteArray>

namespace tollgate {

/// The one place that turns a Redis error reply ("-WRONGTYPE ...") into a typed Error.
Error classifyErrorReply(const QByteArray& text);
/// Whether an error reply says the server is a replica (READONLY): a primary demoted by a
/// failover, for clients that follow Sentinel.
bool isReadOnlyReply(const QByteArray& text);

} // namespace tollgate
