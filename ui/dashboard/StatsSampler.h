#pragma once

#include "tollgate/Policy.h"
#include "tollgate/Result.h"
#include "ui/dashboard/BanCounter.h"
#include "ui/dashboard/DashboardData.h"
#include "ui/dashboard/NearLimitSweep.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <chrono>
#include <map>
#include <vector>

namespace tollgate::ui {

class Session;

/// The bans in force by scope; a shadow policy's ban keys are not among them (it bans nobody).
struct BanTotals
{
    qint64 userWide = 0;
    qint64 perAction = 0;
    qint64 total() const { return userWide + perAction; }
};

/// Collects what the dashboard shows, without the GUI thread ever waiting on Redis and within
/// a command budget at any number of subjects:
///  - every tick (~1 s): TIME, then one pipelined HMGET per action of its history over the
///    chosen range (stats.lua's seconds or minutes), and INFO for ops/s, memory and clients;
///  - every ~10 s: the policy list (sooner after a "policy" event);
///  - the bans in force per action (BanCounter: the ban keys, never the subjects);
///  - the near-limit list (NearLimitSweep: a paced sweep of every subject);
///  - subjects and bans named by ban/unban/reset events, read at once.
/// While Redis does not respond (Session::isResponsive) nothing is counted: the seconds between
/// the last TIME before and the first after are remembered as a stall and charted as a gap.
/// Runs only while active (the page turns it on while visible).
class StatsSampler : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        std::chrono::milliseconds interval{1000};
        std::chrono::milliseconds policyRefresh{10'000};
        BanCounter::Options bans;
        NearLimitSweep::Options sweep;
    };

    explicit StatsSampler(Session* session, QObject* parent = nullptr);

    void setOptions(const Options& options);
    const Options& options() const { return m_options; }

    /// Starts or stops sampling; starting samples at once.
    void setActive(bool active);
    bool isActive() const { return m_timer.isActive(); }

    /// What the action series span; the next sample comes at once.
    void setRange(ChartRange range);
    ChartRange range() const { return m_range; }

    /// Sorted by action.
    const std::vector<ActionStats>& actions() const { return m_actions; }
    const ServerStats& server() const { return m_server; }
    /// The fastest first (NearLimitSweep::entries()).
    const std::vector<NearLimitEntry>& nearLimit() const { return m_sweep->entries(); }
    /// Bans in force now, user-wide and per enforced action.
    BanTotals banTotals();
    BanCounter* banCounter() const { return m_banCounter; }
    NearLimitSweep* sweep() const { return m_sweep; }

Q_SIGNALS:
    /// The action series (and their active bans) were replaced.
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
    void updateBans();
    void countBans(ActionStats& stats);
    bool isShadow(const QByteArray& action) const;
    void onEvent(const QByteArray& event, const QByteArray& user, const QByteArray& action);
    void noteServerSecond(qint64 second); // after each TIME: closes a stall, drops old ones

    Session* m_session;
    Options m_options;
    QTimer m_timer;
    BanCounter* m_banCounter;
    NearLimitSweep* m_sweep;
    std::map<QByteArray, Policy> m_policies;
    QElapsedTimer m_policiesAge;
    bool m_policiesLoaded = false;
    bool m_policiesInFlight = false;
    bool m_statsInFlight = false;
    bool m_serverInFlight = false;
    qint64 m_serverNowMs = 0;                        // the server's clock at the last TIME
    bool m_stalled = false;                          // Redis stopped responding since the last TIME
    std::vector<std::pair<qint64, qint64>> m_stalls; // server seconds, first and last
    ChartRange m_range = ChartRange::FiveMinutes;

    std::vector<ActionStats> m_actions;
    ServerStats m_server;
};

} // namespace tollgate::ui
