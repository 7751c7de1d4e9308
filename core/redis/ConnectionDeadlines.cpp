// When a Connection gives up: each command's deadline, the silence that means the connection is
// dead, and the heartbeat that proves an idle connection alive.
#include "core/redis/Connection.h"

#include <algorithm>

namespace tollgate {

qint64 Connection::silenceLimitMs() const
{
    // A command's deadline, then as long again (or a heartbeat interval) for any byte at all.
    return m_options.commandTimeout.count() +
           std::max(m_options.commandTimeout.count(), m_options.heartbeatInterval.count());
}

void Connection::armDeadline(qint64 dueMs)
{
    if (m_deadlineTimer->isActive() && m_deadlineDueMs <= dueMs)
        return; // it fires sooner; deadlines grow in send order
    m_deadlineDueMs = dueMs;
    m_deadlineTimer->start(int(std::max<qint64>(0, dueMs - m_clock.elapsed())));
}

void Connection::checkDeadlines()
{
    if (m_inFlight.empty()) {
        m_deadlineTimer->stop();
        return;
    }
    const qint64 now = m_clock.elapsed();
    const qint64 silence = silenceLimitMs();
    // A command past its deadline fails alone; its slot stays so the reply, when it comes,
    // still lines up (a long script must not cost every other caller the connection).
    std::vector<InFlight> expired;
    size_t checked = std::min(m_checkedFront, m_inFlight.size());
    for (; checked < m_inFlight.size(); ++checked) {
        InFlight& request = m_inFlight[checked];
        if (request.deadlineMs == 0 || !request.waits())
            continue; // a subscription, or already failed
        if (now <= request.deadlineMs)
            break; // deadlines grow in send order: the rest are not due either
        expired.push_back({std::exchange(request.done, nullptr), 0,
                           std::exchange(request.batch, nullptr), request.index});
    }
    m_checkedFront = checked;
    const Error late{ErrorKind::Timeout, QStringLiteral("no reply from %1 within %2 ms")
                                             .arg(endpoint())
                                             .arg(m_options.commandTimeout.count())};
    for (InFlight& request : expired)
        request.fail(late); // may submit more: the loop above is over
    m_deadlineTimer->stop();
    if (!m_inFlight.empty()) {
        // Next: the first command still waiting, or the silence check below.
        qint64 due = m_lastReadMs + silence + 1;
        for (size_t i = std::min(m_checkedFront, m_inFlight.size()); i < m_inFlight.size(); ++i) {
            const InFlight& request = m_inFlight[i];
            if (request.deadlineMs != 0 && request.waits()) {
                due = std::min(due, request.deadlineMs + 1);
                break;
            }
        }
        armDeadline(std::max(due, m_clock.elapsed() + 1));
    }
    // Nothing at all from the server for this long while it owes replies: the connection is
    // dead (or a script has held the server far beyond any deadline): start over.
    if (!m_inFlight.empty() && m_clock.elapsed() - m_lastReadMs > silence)
        dropConnection(
            {ErrorKind::Timeout,
             QStringLiteral("no reply from %1 for %2 ms").arg(endpoint()).arg(silence)});
}

void Connection::checkHeartbeat()
{
    const qint64 interval = m_options.heartbeatInterval.count();
    // Commands already waiting watch the connection themselves (their deadlines, the silence
    // check); the heartbeat is for an idle connection, above all a subscriber's.
    if (m_state != ConnectionState::Connected || !m_inFlight.empty() ||
        m_clock.elapsed() - m_lastReadMs < interval)
        return;
    // Any answer proves the connection alive, even NOPERM (a +@read user may not PING) or a
    // subscriber's ["pong", ""]; none within the command deadline drops the connection.
    QIODevice* device = m_device.get();
    write({QByteArrayLiteral("PING")}, [this, device](const Result<Reply>& pong) {
        if (device != m_device.get())
            return;
        if (!pong && pong.error().kind == ErrorKind::Timeout)
            dropConnection(pong.error()); // silent past the deadline: half-open, start over
    });
}

} // namespace tollgate
