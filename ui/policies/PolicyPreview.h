#pragma once

#include "tollgate/Policy.h"

#include <QObject>
#include <atomic>
#include <memory>

namespace tollgate::ui {

class Session;

/// "With these limits N of the M current subjects of this action would be denied now":
/// a throttled, bounded SCAN of the action's state keys, then GET of fixed-window counters
/// (compared with the edited limits) or a read-only hit.lua peek with the edited policy.
/// A new compute() supersedes the one in flight.
class PolicyPreview : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 kMaxKeys = 20'000;
    static constexpr int kMaxSubjects = 2'000;

    explicit PolicyPreview(Session* session, QObject* parent = nullptr);

    void compute(const Policy& policy);
    /// Stops the computation in flight (its scan ends at the next batch) and drops its result.
    void cancel()
    {
        ++*m_generation;
        m_busy = false;
    }
    /// True from compute() until its result (or failure) is reported.
    bool isBusy() const { return m_busy; }

Q_SIGNALS:
    /// A sentence for the preview label.
    void finished(const QString& text);
    /// The same result as numbers, with the policy it was computed for (so a save can tell
    /// whether the preview it would quote is about what is being saved); -1 when unavailable.
    void counted(const tollgate::Policy& policy, int denied, int subjects);

private:
    struct Tally;
    void report(const Tally& tally);

    Session* m_session;
    bool m_busy = false;
    // Shared with the scan's callbacks on the client's worker thread, which stop on a change.
    std::shared_ptr<std::atomic<quint64>> m_generation = std::make_shared<std::atomic<quint64>>(0);
};

} // namespace tollgate::ui
