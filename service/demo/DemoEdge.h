#pragma once

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <memory>
#include <random>

namespace tollgate::service {

class RlsClient;

/// The demo's edge: one real tollgated on the demo's Redis, with an Envoy-style configuration
/// (per client address, logins per user with a ban), and part of the simulated traffic sent
/// through it over gRPC as a proxy would: ordinary clients, two addresses flooding, and one
/// account under a credential-stuffing attack. The console then shows the service (Services
/// page) and its subjects (edge.* actions) like any others. Stops the process when destroyed.
class DemoEdge : public QObject
{
    Q_OBJECT
public:
    explicit DemoEdge(QObject* parent = nullptr);
    ~DemoEdge() override;

    /// Starts tollgated against `redisUrl` without waiting for it: started() once it serves
    /// and the traffic flows, failed() when it cannot be found or ends before serving.
    void start(const QString& redisUrl, const QByteArray& prefix);
    quint16 grpcPort() const { return m_grpcPort; }
    qint64 answered() const { return m_answered; }
    qint64 refused() const { return m_refused; }
    /// Where tollgated is: $TOLLGATED, next to this program, or on PATH; empty when nowhere.
    static QString executable();

Q_SIGNALS:
    void started();
    void failed(const QString& message);

private:
    void tick();
    void readLog();

    QTemporaryDir m_dir;
    QProcess m_process;
    std::unique_ptr<RlsClient> m_client;
    QTimer m_timer;
    std::mt19937 m_random{20261203};
    quint16 m_grpcPort = 0;
    qint64 m_inFlight = 0;
    qint64 m_answered = 0;
    qint64 m_refused = 0;
    QByteArray m_log; // what it said until it served
};

} // namespace tollgate::service
