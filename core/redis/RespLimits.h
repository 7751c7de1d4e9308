#pragma once

#include "tollgate/Result.h"

#include <QByteArray>
#include <QByteArrayView>

namespace tollgate {

/// Caps on what one reply may declare. hiredis 0.14 allocates an array's element table as soon
/// as it reads the `*<n>` header, so a hostile or broken peer announcing `*2147483647` would
/// make it reserve 16 GB before a single element arrives.
struct RespLimits
{
    qint64 maxElements = 1 << 20;      // per array: far above any reply Tollgate asks for
    qint64 maxBulkBytes = 512LL << 20; // per bulk string: Redis' own proto-max-bulk-len
    qint64 maxLineBytes = 64 * 1024;   // a status, error or header line
};

/// Walks the byte stream ahead of hiredis, checking every `*` and `$` header against the
/// limits before hiredis sees it. Keeps only the state of the line it is in, so it costs one
/// pass over the bytes and no copies of bulk payloads.
class RespHeaderGuard
{
public:
    explicit RespHeaderGuard(RespLimits limits = {}) : m_limits(limits) {}

    /// Inspects the next bytes of the stream; a Protocol error when a header breaks a limit
    /// (the stream is unusable afterwards). `accepted` is how many leading bytes are safe to
    /// parse: all of them, or those before the refused header.
    Status check(const QByteArray& bytes, qsizetype* accepted);
    void reset();

private:
    Status checkLine(QByteArrayView line);

    RespLimits m_limits;
    QByteArray m_line; // the start of a line that continues in the next bytes (without \r\n)
    qint64 m_skip = 0; // payload bytes (incl. the trailing \r\n) still to pass over
};

} // namespace tollgate
