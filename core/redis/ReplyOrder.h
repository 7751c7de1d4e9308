#pragma once

#include "tollgate/Reply.h"
#include "tollgate/Result.h"

#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

namespace tollgate {

/// Hands each caller its replies in the order of its commands when they travel on several
/// connections (one per node of a Redis Cluster) and so may come back in any order: a reply
/// that arrives before an earlier one of the same caller waits for it. Callers do not wait
/// for each other. A callback destroyed without being called (its command dropped) releases
/// its turn, so the replies behind it still go out.
///
/// One thread only (the client's worker thread): wrap() in the order the caller sent the
/// commands, and the wrapped callbacks called there too.
class ReplyOrder : public std::enable_shared_from_this<ReplyOrder>
{
public:
    /// `caller`: who sent the command (an identity, never dereferenced).
    Callback<Reply> wrap(const void* caller, Callback<Reply> done);

    /// Replies held for a caller whose earlier command has not been answered yet.
    size_t held() const;

private:
    struct Line
    {
        quint64 issued = 0;
        quint64 delivered = 0;
        bool flushing = false;
        std::map<quint64, std::function<void()>> ready; // arrived early, by turn
    };
    class Turn;

    void arrive(const void* caller, quint64 turn, std::function<void()> delivery);

    std::unordered_map<const void*, Line> m_lines;
};

} // namespace tollgate
