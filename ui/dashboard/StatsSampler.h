#pragma once

#include "core/limits/Policy.h"
#include "core/redis/Error.h"
#include "ui/dashboard/DashboardData.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <chrono>
#include <map>
#include <vector>

namespace tollgate::ui {

class Session;

/// Collects what the dashboard shows, without the GUI thread ever waiting on Redis:
///  - every tick (~1 s): TIME, then one pipelined HMGET per action of the last 60 seconds of
///    its stats ring (stats.lua), and INFO for ops/s, memory and clients;
///  - every ~10 s: the policy list (sooner after a "policy" event);
///  - every ~10 s (sooner after a ban/unban event): the core Subjects enumeration (throttled,
///    up to maxScanKeys keys) counting bans per action and keeping the near-limit list, with
///    the same usage rule as every other view.
/// Runs only while active (the page turns it on while visible).
class StatsSampler : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        std::chrono::milliseconds interval{1000};
        std::chrono::milliseconds policyRefresh{10'000};
        std::chrono::milliseconds scanInterval{10'000};
        int scanCount = 500;                    // SCAN COUNT hint
        std::chrono::milliseconds scanPause{20}; // between SCAN calls: the command budget
        qint64 maxScanKeys = 200'000;            // stop the scan here on a huge keyspace
        int maxNearLimit = 100;                  // rows kept in the near-limit list
    };

    explicit StatsSampler(Session* session, QObject* parent = nullptr);

    void setOptions(const Options& options);
    const Options& options() const { return m_options; }

    /// Starts or stops sampling; starting samples at once.
    void setActive(bool active);
    bool isActive() const { return m_timer.isActive(); }

    /// Sorted by action.
    const std::vector<ActionStats>& actions() const { return m_actions; }
    const ServerStats& server() const { return m_server; }
    /// Worst first: banned, deny, warn, then by remaining.
    const std::vector<NearLimitEntry>& nearLimit() const { return m_nearLimit; }
    qint64 userWideBans() const { return m_userWideBans; }
    /// Keys seen by the last finished scan.
    qint64 scannedKeys() const { return m_scannedKeys; }
    /// False when the last scan stopped at maxScanKeys: bans and the near list are a sample.
    bool scanComplete() const { return m_scanComplete; }
    /// Subjects near or over the limit found by the last scan; nearLimit() keeps the worst
    /// maxNearLimit of them.
    qint64 nearLimitTotal() const { return m_nearLimitTotal; }
    bool hasScanned() const { return m_hasScanned; }

Q_SIGNALS:
    /// The action series (and, after a scan, their active bans) were replaced.
    void actionsUpdated();
    void serverUpdated();
    void nearLimitUpdated();
    /// A sampling step failed; the next tick tries again.
    void failed(const tollgate::Error& error);

private:
    void tick();
    void refreshPolicies();
    void sampleStats();
    void sampleServer();
    void startScan();
    void onEvent(const QByteArray& event);

    Session* m_session;
    Options m_options;
    QTimer m_timer;
    std::map<QByteArray, Policy> m_policies;
    QElapsedTimer m_policiesAge;
    bool m_policiesLoaded = false;
    bool m_policiesInFlight = false;
    bool m_statsInFlight = false;
    bool m_serverInFlight = false;
    bool m_scanInFlight = false;
    bool m_scanSoon = false;
    QElapsedTimer m_scanAge;

    std::vector<ActionStats> m_actions;
    std::map<QByteArray, qint64> m_bans; // action -> active bans
    ServerStats m_server;
    std::vector<NearLimitEntry> m_nearLimit;
    qint64 m_userWideBans = 0;
    qint64 m_scannedKeys = 0;
    qint64 m_nearLimitTotal = 0;
    bool m_scanComplete = true;
    bool m_hasScanned = false;
};

} // namespace tollgate::ui
