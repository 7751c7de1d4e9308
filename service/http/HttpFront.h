#pragma once

#include "core/limits/Limiter.h"
#include "core/metrics/Exposition.h"
#include "service/decide/Decider.h"

#include <QHostAddress>
#include <QObject>
#include <functional>
#include <memory>

class QHttpServer;

namespace tollgate::service {

class ServiceMetrics;

/// tollgated's HTTP/1.1 endpoint (Qt's QHttpServer: keep-alive, routing, asynchronous answers):
///   POST /v1/decide  Envoy's rate limit request as JSON; the same answer as gRPC
///   POST /v1/hit     {"action", "user", "cost"}: hit.lua's reply as JSON, 200 or 429, with the
///                    RateLimit, RateLimit-Policy and Retry-After header fields
///   GET  /healthz    200 while the process serves
///   GET  /readyz     200 while Redis answers or the failure policy decides, else 503
///   GET  /metrics    the service's families, then the exporter's
/// Lives on the thread that runs it (the main one); decisions are made on the I/O threads.
class HttpFront : public QObject
{
    Q_OBJECT
public:
    struct Hooks
    {
        std::function<bool(QString* why)> ready;            // and why not
        std::function<QString()> configState;               // a line for /readyz
        /// The exporter's families in that format (read from Redis), then `done`; may be empty.
        std::function<void(ExpositionFormat, std::function<void(QByteArray)>)> exporterMetrics;
    };

    HttpFront(std::shared_ptr<const Decider> decider, std::shared_ptr<PolicyBook> policies,
              std::shared_ptr<ServiceMetrics> metrics, Hooks hooks, QObject* parent = nullptr);
    ~HttpFront() override;

    /// Io error naming the address when it cannot bind.
    Status listen(const QHostAddress& address, quint16 port);
    quint16 port() const { return m_port; }

private:
    void addRoutes();

    std::shared_ptr<const Decider> m_decider;
    std::shared_ptr<PolicyBook> m_policies;
    std::shared_ptr<ServiceMetrics> m_metrics;
    Hooks m_hooks;
    std::unique_ptr<QHttpServer> m_server;
    quint16 m_port = 0;
};

} // namespace tollgate::service
