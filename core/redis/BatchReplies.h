#pragma once

#include "tollgate/Reply.h"
#include "tollgate/Result.h"

#include <functional>
#include <vector>

namespace tollgate {

/// The replies of one pipeline, settled one by one as they arrive (or fail: a timeout, a lost
/// connection), handed to `done` once, in command order, when the last one is settled. Lives
/// on the connection's worker thread; every entry is settled exactly once.
class BatchReplies
{
public:
    using Done = std::function<void(std::vector<Result<Reply>>)>;

    BatchReplies(size_t count, Done done);

    void settle(size_t index, Result<Reply> reply);
    /// Every entry fails with `error` (nothing of the batch was sent).
    void settleAll(const Error& error);
    size_t size() const { return m_replies.size(); }

private:
    std::vector<Result<Reply>> m_replies;
    size_t m_left = 0;
    Done m_done;
};

} // namespace tollgate
