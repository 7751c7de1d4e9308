#include "service/decide/DecisionDeadlines.h"

#include <algorithm>
#include <pthread.h>
#include <vector>

namespace tollgate::service {

namespace {
// What one expiry is taken to cost until this thread has measured one.
constexpr std::chrono::microseconds kFirstCost{50};
// How far down the list a start is looked for: a burst larger than this goes partly late.
constexpr size_t kLookAhead = 4096;
} // namespace

DecisionDeadlines::DecisionDeadlines(std::chrono::milliseconds timeout, Expire expire, Late late)
    : m_timeout(std::max(timeout, std::chrono::milliseconds(1))),
      m_maxLead(m_timeout / 4),
      m_cost(kFirstCost),
      m_expire(std::move(expire)),
      m_late(std::move(late))
{
    m_thread = std::thread([this] {
        pthread_setname_np(pthread_self(), "deadlines");
        run();
    });
}

DecisionDeadlines::~DecisionDeadlines()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.get_id() == std::this_thread::get_id())
        m_thread.detach(); // the last owner let go in an expiry: the loop ends on its own
    else
        m_thread.join();
}

void DecisionDeadlines::watch(const std::shared_ptr<Watched>& item, Watched::Clock::time_point from)
{
    std::lock_guard lock(m_mutex);
    item->m_due = from + m_timeout;
    item->m_place = m_items.insert(m_items.end(), item);
    item->m_watched = true;
}

void DecisionDeadlines::forget(Watched& item)
{
    std::lock_guard lock(m_mutex);
    if (!item.m_watched)
        return;
    item.m_watched = false;
    m_items.erase(item.m_place);
}

std::pair<Watched::Clock::time_point, size_t> DecisionDeadlines::nextStart() const
{
    // Item i (from 0) goes out by its deadline when started (i + 1) expiries before it, all
    // those ahead of it going first: the earliest such start over the list is when to begin,
    // and everything up to that item goes then. No item further on can start earlier once
    // its deadline less the largest lead is past that start.
    auto start = Watched::Clock::time_point::max();
    size_t count = 0;
    size_t i = 0;
    for (const std::shared_ptr<Watched>& item : m_items) {
        if (item->m_due - m_maxLead >= start || i == kLookAhead)
            break;
        const auto lead = std::min(m_cost * Watched::Clock::rep(i + 1), m_maxLead);
        ++i;
        if (item->m_due - lead <= start) {
            start = item->m_due - lead;
            count = i;
        }
    }
    return {start, count};
}

void DecisionDeadlines::run()
{
    std::vector<std::shared_ptr<Watched>> due;
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        // Never asleep past three quarters of a timeout from now: one watched meanwhile falls due
        // a timeout from then and starts at most a quarter early, so never before the wake.
        const auto now = Watched::Clock::now();
        const auto latest = now + (m_timeout - m_maxLead);
        if (m_items.empty()) {
            m_wake.wait_until(lock, latest);
            continue;
        }
        const auto [start, count] = nextStart();
        if (now < start) {
            m_wake.wait_until(lock, std::min(start, latest));
            continue;
        }
        for (size_t i = 0; i < count; ++i) {
            m_items.front()->m_watched = false;
            due.push_back(std::move(m_items.front()));
            m_items.pop_front();
        }
        lock.unlock();
        // Each expiry measured, an eighth of the average: one slow answer does not double
        // every lead, and a burst teaches the cost within itself.
        auto before = now;
        for (const std::shared_ptr<Watched>& item : due) {
            m_expire(item);
            const auto after = Watched::Clock::now();
            m_cost = std::clamp<Watched::Clock::duration>((m_cost * 7 + (after - before)) / 8,
                                                          std::chrono::microseconds(1), m_maxLead);
            if (m_late)
                m_late(after - item->m_due);
            before = after;
        }
        due.clear();
        lock.lock();
    }
}

} // namespace tollgate::service
