#include "ui/subjects/OverrideWatcher.h"

#include "tollgate/Result.h"

#include <QThreadPool>

namespace tollgate::ui {

OverrideWatcher::OverrideWatcher(Session* session, QObject* parent)
    : QObject(parent), m_session(session)
{
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &OverrideWatcher::refresh);
    m_soon.setSingleShot(true);
    m_soon.setInterval(300);
    connect(&m_soon, &QTimer::timeout, this, &OverrideWatcher::refresh);
    connect(session, &Session::eventReceived, this, [this](const QByteArray& event) {
        if (event.startsWith("override") && m_poll.isActive())
            m_soon.start();
    });
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected && m_poll.isActive())
            refresh();
    });
}

void OverrideWatcher::setActive(bool on)
{
    if (on == m_poll.isActive())
        return;
    if (!on) {
        m_poll.stop();
        m_soon.stop();
        return;
    }
    m_poll.start();
    refresh();
}

void OverrideWatcher::refresh()
{
    if (m_session->state() != ConnectionState::Connected)
        return; // the marks shown stay; the reconnect reads again
    if (m_reading) {
        m_again = true;
        return;
    }
    m_reading = true;
    m_session->overrides().list({}, this, [this](Result<std::vector<Override>> listed) {
        if (!listed) {
            m_reading = false;
            Q_EMIT failed(listed.error());
            return;
        }
        // Hashing every override is work that grows with them: off the GUI thread.
        const Context self(this);
        auto build = [self, overrides = std::move(*listed), watcher = this]() mutable {
            auto marks = std::make_shared<const OverrideMarks>(overrides);
            overrides = {}; // freed here, not on the GUI thread
            self.post([watcher, marks = std::move(marks)]() mutable {
                watcher->built(std::move(marks));
            });
        };
        QThreadPool::globalInstance()->start(std::function<void()>(std::move(build)));
    });
}

void OverrideWatcher::built(SharedOverrideMarks marks)
{
    m_reading = false;
    m_marks = std::move(marks);
    Q_EMIT marksChanged(m_marks);
    if (std::exchange(m_again, false))
        refresh();
}

} // namespace tollgate::ui
