#pragma once

#include "service/config/ServiceConfig.h"
#include "tollgate/ConnectionOptions.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

#include <QObject>
#include <QTimer>
#include <memory>

class QFileSystemWatcher;

namespace tollgate {
class Client;
class RefusalCache;
class RefusalCacheFeed;
class ScrapeCollector;
class ServiceRegistry;
} // namespace tollgate

namespace tollgate::service {

class Decider;
class GrpcServer;
class HttpFront;
class PolicyBook;
class RlsService;
class RlqsService;
class ServiceMetrics;

struct DaemonOptions
{
    QString configPath;
    ConnectionOptions connection;
    QByteArray prefix = "tg";
    QString grpcListen = QStringLiteral("127.0.0.1:8081"); // empty: no gRPC
    QString httpListen = QStringLiteral("127.0.0.1:8080"); // empty: no HTTP
    int grpcThreads = 0;                                   // 0: half the cores (at least 1)
    int httpThreads = 0;                                   // 0: one per core
    qint64 cacheBytes = 64LL << 20;                        // 0: no refusal cache
    std::optional<FailureMode> onError;                    // else each policy's own
    QString actor;                                         // who applies the configuration
    bool announce = true;                                  // register in Redis for the console
    int httpMaxConnections = 4096;                         // 0: no cap
};

/// tollgated: loads the configuration, applies its policies (plan, then compare-and-set writes),
/// serves decisions over gRPC and HTTP, keeps the policies and the refusal cache current from
/// the events channel, reloads on SIGHUP or a change of the files (keeping the last good
/// configuration when the new one is bad), and announces itself in Redis every few seconds.
class Daemon : public QObject
{
    Q_OBJECT
public:
    explicit Daemon(DaemonOptions options, QObject* parent = nullptr);
    ~Daemon() override;

    /// Loads the configuration and starts listening; the error names the file or the address.
    Status start();
    /// Loads the configuration again and applies its policies. `force` (SIGHUP): even when the
    /// files did not change, so a policy edited in the console is set back to the file's.
    void reload(bool force = true);
    /// Leaves the registry at once (instead of going stale), waiting up to the command timeout.
    void withdraw();

    quint16 grpcPort() const;
    quint16 httpPort() const;
    bool isReady(QString* why = nullptr) const;

Q_SIGNALS:
    /// One line for the log.
    void log(const QString& line);

private:
    void applyPolicies(std::shared_ptr<const ServiceConfig> config, int attempt = 0);
    void refreshPolicies();
    void ping();
    void announce();
    void watchFiles();

    DaemonOptions m_options;
    KeySchema m_schema;
    std::unique_ptr<Client> m_client;
    std::shared_ptr<RefusalCache> m_cache;
    std::unique_ptr<RefusalCacheFeed> m_feed;
    std::shared_ptr<PolicyBook> m_policies;
    std::shared_ptr<ServiceMetrics> m_metrics;
    std::shared_ptr<Decider> m_decider;
    std::unique_ptr<RlsService> m_rls;
    std::unique_ptr<RlqsService> m_rlqs; // quota streams (service/rlqs), on the gRPC port
    std::unique_ptr<GrpcServer> m_grpc;
    std::unique_ptr<HttpFront> m_http;
    std::unique_ptr<ScrapeCollector> m_scrape;
    std::unique_ptr<ServiceRegistry> m_registry;
    QFileSystemWatcher* m_watcher = nullptr;
    QTimer m_reloadSoon;
    QTimer m_pingTimer;
    QTimer m_announceTimer;
    QTimer m_policyTimer;
    qint64 m_lastPongMs = 0; // steady ms of the last PING answered
    QString m_lastRedisError;
    QString m_lastConfigError;
    QByteArray m_instanceId;
    qint64 m_startedMs = 0;
    qint64 m_lastDecisions = 0;  // at the last announcement
    qint64 m_lastAnnounceMs = 0; // steady ms
    QString m_lastAnnounceError;
};

} // namespace tollgate::service
