#include "core/redis/ReplyOrder.h"

namespace tollgate {

// One command's place in its caller's line. Shared by the copies of the wrapped callback; the
// last copy gone without a call gives the turn up.
class ReplyOrder::Turn
{
public:
    Turn(std::shared_ptr<ReplyOrder> order, const void* caller, quint64 turn, Callback<Reply> done)
        : m_order(std::move(order)), m_caller(caller), m_turn(turn), m_done(std::move(done))
    {
    }
    ~Turn()
    {
        if (!m_used)
            m_order->arrive(m_caller, m_turn, nullptr);
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;

    void answer(Result<Reply> reply)
    {
        if (m_used)
            return; // answered once already: a reply has exactly one place in the line
        m_used = true;
        std::function<void()> delivery;
        if (m_done)
            delivery = [done = std::move(m_done), reply = std::move(reply)]() mutable {
                done(std::move(reply));
            };
        m_order->arrive(m_caller, m_turn, std::move(delivery));
    }

private:
    std::shared_ptr<ReplyOrder> m_order;
    const void* m_caller;
    quint64 m_turn;
    Callback<Reply> m_done;
    bool m_used = false;
};

Callback<Reply> ReplyOrder::wrap(const void* caller, Callback<Reply> done)
{
    const quint64 turn = m_lines[caller].issued++;
    auto place = std::make_shared<Turn>(shared_from_this(), caller, turn, std::move(done));
    return [place](Result<Reply> reply) { place->answer(std::move(reply)); };
}

size_t ReplyOrder::held() const
{
    size_t count = 0;
    for (const auto& entry : m_lines)
        count += entry.second.ready.size();
    return count;
}

void ReplyOrder::arrive(const void* caller, quint64 turn, std::function<void()> delivery)
{
    // References into an unordered_map survive rehashing; only the outermost call for a
    // line erases it, so `line` stays valid while deliveries run callers' code (which may
    // send and be answered again, re-entering here).
    Line& line = m_lines[caller];
    line.ready.emplace(turn, std::move(delivery));
    if (line.flushing)
        return; // the call below us on the stack delivers it in its turn
    line.flushing = true;
    for (auto next = line.ready.begin();
         next != line.ready.end() && next->first == line.delivered; next = line.ready.begin()) {
        std::function<void()> due = std::move(next->second);
        line.ready.erase(next);
        ++line.delivered;
        if (due)
            due();
    }
    line.flushing = false;
    if (line.ready.empty() && line.delivered == line.issued)
        m_lines.erase(caller);
}

} // namespace tollgate
