#pragma once

#include "tollgate/Subjects.h"
#include "ui/common/Session.h"

#include <QObject>
#include <QSet>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

namespace tollgate::ui {

/// Feeds the Subjects page from the core enumeration (core/subjects/Subjects), gently:
///  - the first pass streams every subject at full speed (SCAN COUNT 1000, pipelined reads,
///    a few batches in flight), batch by batch;
///  - afterwards only: the visible rows (hit.lua peeks, every ~2 s), the subjects named by
///    tg:events and keyspace notifications (raw reads, at most twice a second), and a
///    background sweep paced to stay under `steadyCommandsPerSecond`;
///  - exact-id and prefix searches read or scan just that user / prefix.
/// Everything arrives as `batch` on the GUI thread; nothing here waits on Redis.
class SubjectsLoader : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int scanCount = 1000;
        int readsInFlight = 4;
        int steadyCommandsPerSecond = 3000;         // the sweep's share of the 5,000/s budget
        std::chrono::milliseconds sweepRest{2'000}; // between two sweeps (each is paced)
        qint64 prefixSearchMax = 10'000;            // rows a prefix search brings in
    };

    explicit SubjectsLoader(Session* session, QObject* parent = nullptr);
    ~SubjectsLoader() override;

    void setOptions(const Options& options) { m_options = options; }
    const Options& options() const { return m_options; }

    /// Starts the first pass (again: after a reconnect or a manual refresh).
    void start();
    void stop();
    bool isRunning() const { return m_passRunning; }
    /// Off while the page is hidden: no background sweep then (the running one is dropped),
    /// so the page shown has the command budget to itself. The first pass goes on.
    void setSweeping(bool on);
    bool firstPassDone() const { return m_firstPassDone; }

    /// Full peek of these subjects (the rows on screen).
    void refreshVisible(const std::vector<SubjectKey>& keys);
    /// An exact user id: its subjects, addressed through the key schema (no SCAN).
    void findUser(const QByteArray& user);
    /// Users whose id starts with `prefix`: a SCAN MATCH streaming into the table.
    void findPrefix(const QByteArray& prefix);

Q_SIGNALS:
    /// A full pass (first pass or sweep) begins: its batches come with `fromPass`.
    void passStarted();
    /// Subjects read; `fromPass`: found by the running full pass's SCAN (else addressed reads:
    /// visible rows, events, searches).
    void batch(const std::vector<tollgate::Subject>& subjects, bool fromPass);
    /// How far the running pass got; `done` when it finished.
    void progress(qint64 scannedKeys, qint64 subjects, qint64 totalKeys, bool done);
    void policiesLoaded(const tollgate::PolicyListing& listing);
    void failed(const tollgate::Error& error);

private:
    void startPass(bool paced);
    void onNamed(const QByteArray& user, const QByteArray& action);
    void flushNamed();
    void read(const std::vector<SubjectKey>& keys, bool peek);

    Session* m_session;
    Options m_options;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    bool m_passRunning = false;
    bool m_firstPassDone = false;
    bool m_firstPassFailed = false; // started again when a stalled Redis answers
    bool m_sweeping = true;
    bool m_sweepRunning = false; // the running pass is a paced sweep
    qint64 m_totalKeys = 0;
    QTimer m_sweep; // starts the next paced sweep
    QTimer m_named; // flushes subjects named by events
    QSet<SubjectKey> m_namedKeys;
};

} // namespace tollgate::ui
