#pragma once

#include "core/limits/Policy.h"
#include "ui/common/Session.h"
#include "ui/subjects/SubjectRow.h"

#include <QObject>
#include <QSet>
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

namespace tollgate::ui {

/// One background pass over the subjects, gentle on a busy server:
///   1. SCAN <prefix>:{* with a small COUNT, a pause between calls and a cap on keys;
///   2. the keys parsed with KeySchema into distinct (user, action) and their ban keys;
///   3. PolicyStore::list once;
///   4. hit.lua peeks and ban HGETALLs in chunks, the `priority` subjects (the view's visible
///      rows) first, delivered as `partial` before the rest arrives with `finished`.
/// Everything but the deliveries runs on the client's worker thread; the GUI thread only
/// receives finished batches.
class SubjectsRefresher : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int scanCount = 500;
        qint64 maxKeys = 50'000;
        std::chrono::milliseconds scanPause{2}; // between SCAN calls
        int chunk = 500;                        // peeks in flight at once
    };

    explicit SubjectsRefresher(Session* session, QObject* parent = nullptr);
    ~SubjectsRefresher() override;

    void setOptions(const Options& options) { m_options = options; }
    bool isRunning() const { return m_running; }

    /// Starts a pass unless one is running (then returns false).
    bool start(const QSet<SubjectKey>& priority);

Q_SIGNALS:
    /// The priority subjects, fresh.
    void partial(const std::vector<tollgate::ui::SubjectRow>& rows);
    /// Every subject (sorted by user, action), the policies, and whether the key cap was hit.
    void finished(const std::vector<tollgate::ui::SubjectRow>& rows,
                  const std::vector<tollgate::Policy>& policies, bool truncated);
    void failed(const tollgate::Error& error);

private:
    friend struct RefreshRun;
    Session* m_session;
    Options m_options;
    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
};

} // namespace tollgate::ui
