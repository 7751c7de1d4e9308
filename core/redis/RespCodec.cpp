#include "core/redis/RespCodec.h"

#include <hiredis/hiredis.h>

#include <algorithm>

namespace tollgate {

namespace {

// hiredis' parser builds our Reply directly (its reply-object hooks) instead of a redisReply
// tree that would then be copied: one allocation per string and per array, none per element.
// A child lives in its parent's element vector, sized once when the array starts, so only the
// root is ever freed (hiredis frees nothing but the root either).
Reply* place(const redisReadTask* task)
{
    if (!task->parent)
        return new Reply;
    auto* parent = static_cast<Reply*>(task->parent->obj);
    return &parent->elements[size_t(task->idx)];
}

void* createString(const redisReadTask* task, char* bytes, size_t length)
{
    Reply* reply = place(task);
    reply->type = task->type == REDIS_REPLY_STATUS  ? Reply::Type::Status
                  : task->type == REDIS_REPLY_ERROR ? Reply::Type::Error
                                                    : Reply::Type::String;
    reply->string = QByteArray(bytes, qsizetype(length));
    return reply;
}

void* createArray(const redisReadTask* task, int elements)
{
    Reply* reply = place(task);
    reply->type = Reply::Type::Array;
    reply->elements.resize(size_t(std::max(0, elements)));
    return reply;
}

void* createInteger(const redisReadTask* task, long long value)
{
    Reply* reply = place(task);
    reply->type = Reply::Type::Integer;
    reply->integer = qint64(value);
    return reply;
}

void* createNil(const redisReadTask* task)
{
    return place(task); // Type::Nil by default
}

void freeReply(void* reply)
{
    delete static_cast<Reply*>(reply);
}

redisReplyObjectFunctions replyFunctions = {createString, createArray, createInteger, createNil,
                                            freeReply};

redisReader* createReader()
{
    redisReader* reader = redisReaderCreateWithFunctions(&replyFunctions);
    // Keep memory bounded after large replies (hiredis' default is 16 KiB too).
    reader->maxbuf = 64 * 1024;
    return reader;
}

} // namespace

void RespParser::ReaderDeleter::operator()(redisReader* reader) const
{
    redisReaderFree(reader);
}

RespParser::RespParser(RespLimits limits) : m_reader(createReader()), m_guard(limits) {}

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
    std::unique_ptr<Reply> owned(static_cast<Reply*>(raw));
    return std::optional<Reply>(std::move(*owned));
}

void RespParser::reset()
{
    m_reader.reset(createReader());
    m_guard.reset();
    m_broken.reset();
}

} // namespace tollgate
