#pragma once

#include "app/demo/DemoHistory.h"
#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Limiter.h"
#include "tollgate/Policy.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <chrono>
#include <memory>
#include <vector>

namespace tollgate {

/// The demo's traffic simulator: loads example policies (PolicyStore), writes a simulated day of
/// per-minute statistics (DemoHistory), then counts hits through Limiter (with console
/// statistics on) for many ordinary users at a human rate and a few abusive ones who reach
/// warn, deny and ban within seconds. It uses a connection of its
/// own, so the console can reconnect elsewhere while it runs.
class DemoTraffic : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int ordinaryUsers = 200;
        int maxHitsPerSecond = 300; // hard cap, whatever the mix
        int maxInFlight = 200;      // skip a tick while Redis lags behind
        std::chrono::milliseconds tick{100};
        // Policies are read again this often, so edits made in the console (a lower limit, a
        // new or deleted action) change the traffic's outcomes within seconds.
        std::chrono::milliseconds policyReload{2000};
        QString actor = QStringLiteral("demo");
        // The console's demo: a customer with an override and an exempt load test, hitting
        // (DemoOverrides); off for `tollgatectl simulate`, which writes no overrides.
        bool overriddenUsers = false;
    };

    DemoTraffic(ConnectionOptions connection, KeySchema schema, Options options,
                QObject* parent = nullptr);
    DemoTraffic(ConnectionOptions connection, KeySchema schema, QObject* parent = nullptr);
    ~DemoTraffic() override;

    /// Connects, saves the example policies (keeping existing ones), then starts the hits.
    void start();
    void stop();
    bool isRunning() const { return m_timer.isActive(); }

    qint64 hitsSent() const { return m_hitsSent; }
    /// The users who misbehave, e.g. to open one of them in the console.
    static QList<QByteArray> abusiveUsers();
    /// The example policies, as saved by start().
    static std::vector<Policy> examplePolicies();
    /// The policies the traffic currently hits with (the stored ones, reloaded periodically).
    const std::vector<Policy>& policies() const { return m_policies; }
    /// Hits and denials a second per action once every abuser runs: what the seeded history
    /// leads up to.
    std::map<QByteArray, DemoRate> steadyRates() const;

Q_SIGNALS:
    void started();
    void failed(const tollgate::Error& error);
    /// The stored policies were read again (edits picked up).
    void policiesReloaded();

private:
    void loadPolicies();
    void reloadPolicies();
    QByteArray pickOrdinaryAction() const;
    void tick();
    /// Begins the hits, `lateMs` after the second the history ends with (sent at the first tick).
    void startTraffic(qint64 lateMs);
    void hit(const Policy& policy, const QByteArray& user);
    const Policy* policy(const QByteArray& action) const;

    Options m_options;
    KeySchema m_schema;
    std::unique_ptr<Client> m_client;
    std::unique_ptr<Limiter> m_limiter; // one for the run: its prepared commands are reused
    std::vector<Policy> m_policies;
    QTimer m_timer;
    QTimer m_reload;
    bool m_reloading = false;
    qint64 m_hitsSent = 0;
    int m_inFlight = 0;
    int m_tickCount = 0;
    QElapsedTimer m_sinceTick; // a late tick sends what it missed
    qint64 m_backlogMs = 0;    // the first tick's: how late the traffic began
    bool m_stopped = true;
    bool m_policiesLoaded = false; // from then on, a lost server ends the run (stateChanged)
    Error m_lostWith;              // why the client last lost its server
};

} // namespace tollgate
