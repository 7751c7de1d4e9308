#pragma once

#include <QDateTime>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>

namespace tollgate::ui {

/// One background pass after another while active, `rest` apart, each one cancellable: how
/// the dashboard's readers (BanCounter, NearLimitSweep) pace themselves. Stopping drops the
/// running pass; starting again waits out what is left of the rest since the last one ended.
class PassLoop : public QObject
{
    Q_OBJECT
public:
    /// Starts a pass; it must call ended() once done unless `cancelled` was set first.
    using Start = std::function<void(std::shared_ptr<std::atomic<bool>> cancelled)>;

    PassLoop(Start start, QObject* parent = nullptr);
    ~PassLoop() override;

    void setRest(std::chrono::milliseconds rest) { m_rest = rest; }
    void setActive(bool active);
    bool isActive() const { return m_active; }
    bool isRunning() const { return m_running; }
    /// The next pass now, or a second after the running one.
    void soon();
    /// The running pass is over; `complete`: it went through, lastFinished() is now.
    void ended(bool complete);
    /// When the last complete pass ended; invalid before the first.
    QDateTime lastFinished() const { return m_finished; }

private:
    void startPass();

    Start m_start;
    std::chrono::milliseconds m_rest{10'000};
    QTimer m_next;
    bool m_active = false;
    bool m_running = false;
    bool m_again = false; // soon() during a pass: the next one without the rest
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    QDateTime m_finished;
};

} // namespace tollgate::ui
