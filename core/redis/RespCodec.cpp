#include "core/redis/RespCodec.h"

#include <hiredis/hiredis.h>

#include <algorithm>

namespace tollgate {

namespace {

// hiredis' parser builds our Reply directly (its reply-object hooks) instead of a redisReply
// tree that would then be copied: one allocation per string and per array, none per element.
// A child lives in its parent's element vector, sized once when the array starts; the root
// lives in one slot per reader (its privdata), moved out by next() before the next reply
// starts, so a reply of an integer or nil allocates nothing at all. hiredis only ever frees a
// root, which here means emptying the slot.
Reply* place(const redisReadTask* task)
{
    if (!task->parent)
        return static_cast<Reply*>(task->privdata);
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

void freeReply(void* root)
{
    *static_cast<Reply*>(root) = Reply();
}

redisReplyObjectFunctions replyFunctions = {createString, createArray, createInteger, createNil,
                                            freeReply};

redisReader* createReader()
{
    redisReader* reader = redisReaderCreateWithFunctions(&replyFunctions);
    reader->privdata = new Reply; // the root slot, deleted with the reader
    // Keep memory bounded after large replies (hiredis' default is 16 KiB too).
    reader->maxbuf = 64 * 1024;
    return reader;
}

} // namespace

void RespParser::ReaderDeleter::operator()(redisReader* reader) const
{
    auto* root = static_cast<Reply*>(reader->privdata);
    redisReaderFree(reader); // empties a root still being built
    delete root;
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
    Reply& root = *static_cast<Reply*>(raw);
    std::optional<Reply> reply(std::move(root));
    root = Reply(); // the slot, empty for the next reply
    return reply;
}

void RespParser::reset()
{
    m_reader.reset(createReader());
    m_guard.reset();
    m_broken.reset();
}

} // namespace tollgate
