#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace tollgate::service {

/// What DecisionDeadlines watches (a decision waiting on Redis): its place in the list.
struct Watched
{
    using Clock = std::chrono::steady_clock;
    virtual ~Watched() = default;

private:
    friend class DecisionDeadlines;
    Clock::time_point m_due;
    std::list<std::shared_ptr<Watched>>::iterator m_place;
    bool m_watched = false; // under the watch's mutex
};

/// Each decision's deadline, kept on a thread of its own ("deadlines"): a decision still
/// waiting on Redis at its deadline is handed to `expire` then, whatever the Redis connection,
/// its queue or the other threads are doing. Every deadline is the same length, so they fall
/// due in the order they were set: the list is in order, and the thread sleeps until the first
/// is to start, never longer than three quarters of a timeout (any set meanwhile is to start
/// later): setting one never wakes it.
///
/// Answers take time to make and send, one after another on this thread: when many fall due
/// together (a burst of requests, all waiting on a frozen Redis), the last would go out one
/// answer's time late per answer ahead of it. So each starts early by the time the answers
/// ahead of it and its own take (measured as they go), never more than a quarter of the
/// timeout: the last goes out at its deadline, and a lone one a moment before it.
class DecisionDeadlines
{
public:
    using Expire = std::function<void(const std::shared_ptr<Watched>&)>;
    /// After each expiry: how long after its deadline its answer was handed on (negative: early).
    using Late = std::function<void(Watched::Clock::duration)>;

    DecisionDeadlines(std::chrono::milliseconds timeout, Expire expire, Late late = {});
    ~DecisionDeadlines();
    DecisionDeadlines(const DecisionDeadlines&) = delete;
    DecisionDeadlines& operator=(const DecisionDeadlines&) = delete;

    /// `item` falls due a timeout after `from` (about now), unless forgotten first.
    void watch(const std::shared_ptr<Watched>& item, Watched::Clock::time_point from);
    /// `item` was decided: it does not fall due (nothing when it already has).
    void forget(Watched& item);

private:
    void run();
    /// Under the mutex: when the next expiries are to start, and how many go then.
    std::pair<Watched::Clock::time_point, size_t> nextStart() const;

    const Watched::Clock::duration m_timeout;
    const Watched::Clock::duration m_maxLead; // a quarter of the timeout
    Watched::Clock::duration m_cost;          // one expiry, averaged; this thread's own
    const Expire m_expire;
    const Late m_late;
    std::mutex m_mutex;
    std::condition_variable m_wake;              // only to stop
    std::list<std::shared_ptr<Watched>> m_items; // by due time
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace tollgate::service
