#pragma once

#include "tollgate/Result.h"
#include "tollgate/Subjects.h"
#include "ui/dashboard/DashboardData.h"

#include "ui/dashboard/PassLoop.h"

#include <QDateTime>
#include <QObject>
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

namespace tollgate::ui {

class Session;

/// The dashboard's "near or over the limit" list at any size, within a command budget: a
/// paced sweep over every subject (the core enumeration, one read batch at a time, each SCAN
/// waiting until the commands sent so far are paid for at `commandsPerSecond`), one pass
/// after another while active.
/// The list shown is the last complete pass's (the first pass's so far until one completes);
/// subjects named by events are read at once, addressed, and take their place in it.
class NearLimitSweep : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int commandsPerSecond = 2500;          // the sweep's share of the 5,000/s budget
        std::chrono::milliseconds rest{5'000}; // between two passes
        int maxEntries = 100;                  // rows kept, the fastest first
    };

    explicit NearLimitSweep(Session* session, QObject* parent = nullptr);

    void setOptions(const Options& options);
    const Options& options() const { return m_options; }

    /// Starts sweeping (a pass now unless one finished within `rest`) or stops (the running
    /// pass is dropped).
    void setActive(bool active);
    /// Begins the next pass now, or right after the running one (after a ban: counters may
    /// have moved).
    void sweepSoon() { m_loop->soon(); }
    /// Reads one subject now (an event named it); an empty action reads the user's subjects.
    void readNamed(const QByteArray& user, const QByteArray& action);

    /// The fastest first (hits per minute), then banned, deny, warn, then by remaining.
    const std::vector<NearLimitEntry>& entries() const { return m_entries; }
    /// Subjects near or over the limit the last complete pass found (the first pass: so far);
    /// entries() keeps the fastest maxEntries of them.
    qint64 total() const { return m_total; }
    bool hasCompletePass() const { return lastFinished().isValid(); }
    QDateTime lastFinished() const { return m_loop->lastFinished(); }
    qint64 lastDurationMs() const { return m_durationMs; }
    qint64 lastSubjects() const { return m_subjects; }
    /// Keys the running pass has scanned so far; -1 when none runs.
    qint64 runningScanned() const { return m_loop->isRunning() ? m_runningScanned : -1; }

Q_SIGNALS:
    void updated();
    void failed(const tollgate::Error& error);

private:
    void startPass(const std::shared_ptr<std::atomic<bool>>& cancelled);
    // Replaces the entries of (user, action) (an empty action: of the user) with `fresh`.
    void upsert(const QByteArray& user, const QByteArray& action,
                std::vector<NearLimitEntry> fresh);

    Session* m_session;
    Options m_options;
    PassLoop* m_loop;
    qint64 m_runningScanned = 0;
    std::shared_ptr<const PolicyCatalog> m_policies = std::make_shared<const PolicyCatalog>();
    std::vector<NearLimitEntry> m_entries;
    qint64 m_total = 0;
    qint64 m_durationMs = 0;
    qint64 m_subjects = 0;
};

/// Sorts the fastest first (hits per minute; unknown last), then banned, deny, warn, then by
/// remaining, action and user, and keeps the first `max`.
void trimNearLimit(std::vector<NearLimitEntry>& entries, int max);

} // namespace tollgate::ui
