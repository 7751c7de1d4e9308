#include "ui/dashboard/PassLoop.h"

#include <algorithm>
#include <utility>

namespace tollgate::ui {

namespace {
// soon() during a pass: the next one a second after it, so a storm of events on a small
// keyspace (each pass one SCAN call) cannot chain passes back to back.
constexpr std::chrono::milliseconds kSoonGap{1000};
} // namespace

PassLoop::PassLoop(Start start, QObject* parent) : QObject(parent), m_start(std::move(start))
{
    m_next.setSingleShot(true);
    connect(&m_next, &QTimer::timeout, this, &PassLoop::startPass);
}

PassLoop::~PassLoop()
{
    if (m_cancelled)
        m_cancelled->store(true);
}

void PassLoop::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    if (!active) {
        m_next.stop();
        if (m_cancelled)
            m_cancelled->store(true);
        m_running = false;
        return;
    }
    const qint64 since =
        m_finished.isValid() ? m_finished.msecsTo(QDateTime::currentDateTime()) : m_rest.count();
    m_next.start(std::chrono::milliseconds(std::max<qint64>(0, m_rest.count() - since)));
}

void PassLoop::soon()
{
    if (!m_active)
        return;
    if (m_running)
        m_again = true;
    else
        m_next.start(0);
}

void PassLoop::startPass()
{
    if (!m_active || m_running)
        return;
    m_running = true;
    m_cancelled = std::make_shared<std::atomic<bool>>(false);
    m_start(m_cancelled);
}

void PassLoop::ended(bool complete)
{
    m_running = false;
    if (complete)
        m_finished = QDateTime::currentDateTime();
    if (m_active)
        m_next.start(std::exchange(m_again, false) ? kSoonGap : m_rest);
}

} // namespace tollgate::ui
