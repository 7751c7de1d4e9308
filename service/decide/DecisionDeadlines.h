#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

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
/// waiting on Redis a timeout after it was watched is handed to `expire` then, whatever the
/// Redis connection, its queue or the other threads are doing. Every deadline is the same
/// length, so they fall due in the order they were set: the list is in order, and the thread
/// sleeps until the first (or, with none, one timeout, after which any set meanwhile is due
/// later): setting one never wakes it.
class DecisionDeadlines
{
public:
    using Expire = std::function<void(const std::shared_ptr<Watched>&)>;

    DecisionDeadlines(std::chrono::milliseconds timeout, Expire expire);
    ~DecisionDeadlines();
    DecisionDeadlines(const DecisionDeadlines&) = delete;
    DecisionDeadlines& operator=(const DecisionDeadlines&) = delete;

    /// `item` falls due a timeout after `from` (about now), unless forgotten first.
    void watch(const std::shared_ptr<Watched>& item, Watched::Clock::time_point from);
    /// `item` was decided: it does not fall due (nothing when it already has).
    void forget(Watched& item);

private:
    void run();

    const Watched::Clock::duration m_timeout;
    const Expire m_expire;
    std::mutex m_mutex;
    std::condition_variable m_wake;              // only to stop
    std::list<std::shared_ptr<Watched>> m_items; // by due time
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace tollgate::service
