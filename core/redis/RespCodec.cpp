#include "core/redis/RespCodec.h"

#include <hiredis/hiredis.h>

namespace tollgate {

namespace {

struct ReplyObjectDeleter
{
    void operator()(void* reply) const { freeReplyObject(reply); }
};
using ReplyObject = std::unique_ptr<void, ReplyObjectDeleter>;

Reply convert(const redisReply* raw)
{
    Reply reply;
    switch (raw->type) {
    case REDIS_REPLY_STRING:
        reply.type = Reply::Type::String;
        reply.string = QByteArray(raw->str, static_cast<int>(raw->len));
        break;
    case REDIS_REPLY_STATUS:
        reply.type = Reply::Type::Status;
        reply.string = QByteArray(raw->str, static_cast<int>(raw->len));
        break;
    case REDIS_REPLY_ERROR:
        reply.type = Reply::Type::Error;
        reply.string = QByteArray(raw->str, static_cast<int>(raw->len));
        break;
    case REDIS_REPLY_INTEGER:
        reply.type = Reply::Type::Integer;
        reply.integer = raw->integer;
        break;
    case REDIS_REPLY_ARRAY:
        reply.type = Reply::Type::Array;
        reply.elements.reserve(raw->elements);
        for (size_t i = 0; i < raw->elements; ++i)
            reply.elements.push_back(convert(raw->element[i]));
        break;
    default:
        reply.type = Reply::Type::Nil;
        break;
    }
    return reply;
}

} // namespace

void RespParser::ReaderDeleter::operator()(redisReader* reader) const
{
    redisReaderFree(reader);
}

RespParser::RespParser(RespLimits limits) : m_reader(redisReaderCreate()), m_guard(limits)
{
    // Keep memory bounded after large replies (hiredis' default is 16 KiB too).
    m_reader->maxbuf = 64 * 1024;
}

RespParser::~RespParser() = default;

void RespParser::feed(const QByteArray& bytes)
{
    if (m_broken)
        return;
    // Bytes after a refused header never reach hiredis: they would be parsed as a reply.
    qsizetype accepted = 0;
    const Status checked = m_guard.check(bytes, &accepted);
    if (!checked)
        m_broken = checked.error();
    redisReaderFeed(m_reader.get(), bytes.constData(), static_cast<size_t>(accepted));
}

Result<std::optional<Reply>> RespParser::next()
{
    void* raw = nullptr;
    // Replies completed before the refused header are still delivered, in order.
    if (redisReaderGetReply(m_reader.get(), &raw) != REDIS_OK) {
        const QString why = QString::fromUtf8(m_reader->errstr);
        return Error{ErrorKind::Protocol, QStringLiteral("invalid reply from server: ") + why};
    }
    if (!raw) {
        if (m_broken)
            return *m_broken;
        return std::optional<Reply>();
    }
    ReplyObject owned(raw);
    return std::optional<Reply>(convert(static_cast<const redisReply*>(raw)));
}

void RespParser::reset()
{
    m_reader.reset(redisReaderCreate());
    m_reader->maxbuf = 64 * 1024;
    m_guard.reset();
    m_broken.reset();
}

} // namespace tollgate
