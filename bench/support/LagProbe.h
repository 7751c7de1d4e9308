#pragma once

// How late the GUI thread's event loop gets round to a 5 ms precise timer: the longest such
// delay is the longest stall a user would feel (input and painting wait just as long).
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>
#include <utility>

namespace tollgate::bench {

class LagProbe : public QObject
{
public:
    static constexpr qint64 kTickMs = 5;

    LagProbe()
    {
        m_tick.setTimerType(Qt::PreciseTimer);
        m_tick.setInterval(int(kTickMs));
        connect(&m_tick, &QTimer::timeout, this, [this] {
            const qint64 late = m_sinceTick.restart() - kTickMs;
            m_longest = std::max(m_longest, late);
            m_over50 += late > 50 ? 1 : 0;
        });
        m_sinceTick.start();
        m_tick.start();
    }

    /// The longest delay since the last call (ms), and starts over.
    qint64 takeLongest() { return std::exchange(m_longest, 0); }
    /// How many delays over 50 ms since the last call, and starts over.
    int takeOver50() { return std::exchange(m_over50, 0); }

private:
    QTimer m_tick;
    QElapsedTimer m_sinceTick;
    qint64 m_longest = 0;
    int m_over50 = 0;
};

} // namespace tollgate::bench
