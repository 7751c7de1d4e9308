#include "service/decide/DecisionDeadlines.h"

#include <pthread.h>
#include <vector>

namespace tollgate::service {

DecisionDeadlines::DecisionDeadlines(std::chrono::milliseconds timeout, Expire expire)
    : m_timeout(std::max(timeout, std::chrono::milliseconds(1))), m_expire(std::move(expire))
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

void DecisionDeadlines::run()
{
    std::vector<std::shared_ptr<Watched>> due;
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        if (m_items.empty()) {
            m_wake.wait_for(lock, m_timeout);
            continue;
        }
        const auto now = Watched::Clock::now();
        if (now < m_items.front()->m_due) {
            m_wake.wait_until(lock, m_items.front()->m_due);
            continue;
        }
        while (!m_items.empty() && m_items.front()->m_due <= now) {
            m_items.front()->m_watched = false;
            due.push_back(std::move(m_items.front()));
            m_items.pop_front();
        }
        lock.unlock();
        for (const std::shared_ptr<Watched>& item : due)
            m_expire(item);
        due.clear();
        lock.lock();
    }
}

} // namespace tollgate::service
