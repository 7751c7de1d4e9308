#include "tollgate/Limiter.h"

#include <cmath>

namespace tollgate {

InsuranceLimiter::InsuranceLimiter(Options options) : m_options(options)
{
    m_clock.start();
}

std::shared_ptr<InsuranceLimiter> InsuranceLimiter::shared()
{
    static const auto instance = std::make_shared<InsuranceLimiter>();
    return instance;
}

qsizetype InsuranceLimiter::windowCount() const
{
    QMutexLocker lock(&m_mutex);
    return m_windows.size();
}

void InsuranceLimiter::makeRoom(qint64 nowMs)
{
    if (m_windows.size() < m_options.maxWindows)
        return;
    for (auto it = m_windows.begin(); it != m_windows.end();) {
        if (nowMs - it->startMs >= it->windowMs)
            it = m_windows.erase(it);
        else
            ++it;
    }
    if (m_windows.size() >= m_options.maxWindows)
        m_windows.clear();
}

HitResult InsuranceLimiter::hit(const Policy& policy, const QByteArray& user, qint64 cost,
                                bool count)
{
    const qint64 units = cost > 0 ? cost : policy.cost;
    QMutexLocker lock(&m_mutex);
    const qint64 nowMs = m_clock.elapsed();
    makeRoom(nowMs);

    struct Evaluated
    {
        QByteArray key;
        Window window;
        qint64 limit = 0;
        bool fits = false;
    };
    std::vector<Evaluated> windows;
    bool allFit = true;
    for (const WindowLimit& w : policy.windows) {
        // \0 cannot end an escaped id, so no two (action, user, window) share a key.
        QByteArray key = policy.action + '\0' + user + '\0' + QByteArray::number(w.windowMs);
        Window state = m_windows.value(key);
        if (state.windowMs == 0 || nowMs - state.startMs >= w.windowMs)
            state = Window{nowMs, w.windowMs, 0};
        const qint64 limit = std::max<qint64>(
            1, static_cast<qint64>(std::floor(static_cast<double>(w.limit) * m_options.factor)));
        const bool fits = state.count + units <= limit;
        allFit = allFit && fits;
        windows.push_back({std::move(key), state, limit, fits});
    }

    HitResult result;
    result.decidedBy = DecidedBy::Insurance;
    result.allowed = allFit;
    result.tier = allFit ? Tier::Ok : Tier::Deny;
    const Evaluated* binding = nullptr;
    for (Evaluated& e : windows) {
        if (allFit && count) {
            e.window.count += units;
            m_windows.insert(e.key, e.window);
        }
        const qint64 resetMs =
            e.window.count > 0 ? e.window.startMs + e.window.windowMs - nowMs : 0;
        // Denied: the denying window that frees up last; allowed: the one with least room.
        const bool better =
            !binding || (allFit ? e.limit - e.window.count < binding->limit - binding->window.count
                                : e.fits < binding->fits ||
                                      (e.fits == binding->fits && resetMs > result.resetMs));
        if (better) {
            binding = &e;
            result.count = e.window.count;
            result.limit = e.limit;
            result.remaining = std::max<qint64>(0, e.limit - e.window.count);
            result.resetMs = resetMs;
        }
    }
    if (!allFit)
        result.retryAfterMs = units > result.limit ? -1 : std::max<qint64>(1, result.resetMs);
    return result;
}

} // namespace tollgate
