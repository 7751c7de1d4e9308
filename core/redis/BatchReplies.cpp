#include "core/redis/BatchReplies.h"

namespace tollgate {

BatchReplies::BatchReplies(size_t count, Done done)
    : m_replies(count, Result<Reply>(ErrorKind::Closed, QStringLiteral("client closed"))),
      m_left(count), m_done(std::move(done))
{
}

void BatchReplies::settle(size_t index, Result<Reply> reply)
{
    m_replies[index] = std::move(reply);
    if (--m_left == 0 && m_done)
        std::exchange(m_done, nullptr)(std::move(m_replies));
}

void BatchReplies::settleAll(const Error& error)
{
    for (size_t i = 0; i < m_replies.size(); ++i)
        settle(i, error);
}

} // namespace tollgate
