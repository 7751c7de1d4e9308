#pragma once

#include "core/redis/CommandBuilder.h"
#include "core/redis/RespLimits.h"
#include "tollgate/Reply.h"
#include "tollgate/Result.h"

#include <QList>
#include <memory>

struct redisReader;

namespace tollgate {

/// Incremental RESP decoder over hiredis' redisReader. Feed it whatever the socket
/// delivered; take complete replies out as they become available.
class RespParser
{
public:
    explicit RespParser(RespLimits limits = {});
    ~RespParser();
    RespParser(const RespParser&) = delete;
    RespParser& operator=(const RespParser&) = delete;

    void feed(const QByteArray& bytes);

    /// A complete reply, std::nullopt when more bytes are needed, or a Protocol error
    /// after which the stream is unusable (the connection must be dropped). A header that
    /// breaks the limits fails here before anything is allocated for it.
    Result<std::optional<Reply>> next();

    /// Forget buffered bytes (after a reconnect).
    void reset();

private:
    struct ReaderDeleter
    {
        void operator()(redisReader* reader) const;
    };
    std::unique_ptr<redisReader, ReaderDeleter> m_reader;
    RespHeaderGuard m_guard;
    std::optional<Error> m_broken; // set once the guard refused the stream
};

} // namespace tollgate
