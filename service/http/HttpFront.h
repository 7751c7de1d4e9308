#pragma once

#include "core/http/HttpServer.h"
#include "core/metrics/Exposition.h"
#include "service/decide/Decider.h"

#include <QHostAddress>
#include <QObject>
#include <functional>
#include <memory>

namespace tollgate::service {

class ServiceMetrics;

/// tollgated's HTTP/1.1 endpoint (the project's HttpServer with keep-alive and bodies of up to
/// 2 MiB; docs/architecture.md says why not Qt's QHttpServer):
///   POST /v1/decide  Envoy's rate limit request as JSON; the same answer as gRPC
///   POST /v1/hit     {"action", "user", "cost"}: hit.lua's reply as JSON, 200 or 429, with the
///                    RateLimit, RateLimit-Policy and Retry-After header fields
///   GET  /healthz    200 while the process serves
///   GET  /readyz     200 while Redis answers or the failure policy decides, else 503
///   GET  /metrics    the service's families, then the exporter's
/// Connections are served on `threads` threads of the server's own (decisions and hits are
/// read and sent there, answered on the I/O threads and written back there); the other paths
/// run on the thread that runs this object (the main one), where the daemon's state is.
class HttpFront : public QObject
{
    Q_OBJECT
public:
    struct Hooks
    {
        std::function<bool(QString* why)> ready; // and why not
        std::function<QString()> configState;    // a line for /readyz
        /// The exporter's families in that format (read from Redis), then `done`; may be empty.
        std::function<void(ExpositionFormat, std::function<void(QByteArray)>)> exporterMetrics;
    };

    static constexpr qint64 kMaxBody = 2 << 20; // a request may carry a 1 MB descriptor value
    static constexpr int kIdleTimeoutMs = 60'000;   // a kept-alive connection with no request
    static constexpr int kRequestTimeoutMs = 10'000; // a request's head and body, once begun

    HttpFront(std::shared_ptr<const Decider> decider, std::shared_ptr<PolicyBook> policies,
              std::shared_ptr<ServiceMetrics> metrics, Hooks hooks, int maxConnections,
              int threads, QObject* parent = nullptr);
    ~HttpFront() override;

    /// Io error naming the address when it cannot bind.
    Status listen(const QHostAddress& address, quint16 port);
    quint16 port() const { return m_server->port(); }

private:
    void serve(const HttpRequest& request, const HttpResponder& responder); // any thread
    void serveOthers(const HttpRequest& request, const HttpResponder& responder); // this one's
    void decide(const HttpRequest& request, const HttpResponder& responder);
    void hit(const HttpRequest& request, const HttpResponder& responder);
    void metrics(const HttpRequest& request, const HttpResponder& responder);

    std::shared_ptr<const Decider> m_decider;
    std::shared_ptr<PolicyBook> m_policies;
    std::shared_ptr<ServiceMetrics> m_metrics;
    Hooks m_hooks;
    HttpServer* m_server;
};

} // namespace tollgate::service
