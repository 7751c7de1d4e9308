#pragma once

#include "tollgate/Result.h"

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace grpc {
class Server;
class Service;
class ServerCompletionQueue;
} // namespace grpc

namespace tollgate::service {

class HealthService;
class RlsService;

/// The gRPC server: the rate limit service, grpc.health.v1.Health (gRPC's own, its status set
/// by setServing; service/grpc/HealthService) and server reflection (so grpcurl can list and call it). Plain-text HTTP/2.
/// The rate limit calls are served by threads of its own, one completion queue each; no other
/// thread waits on a queue of the server.
class GrpcServer
{
public:
    GrpcServer();
    ~GrpcServer();

    /// Listens on "host:port" (port 0: any free one) and starts `threads` threads (at least
    /// one); Io error when it cannot bind.
    Status start(const QString& address, RlsService* service, int threads);
    /// Another asynchronous service on the same port (service/rlqs's), served on the first
    /// queue by its thread: its tags are QueueTags (service/grpc/QueueTag.h says why no queue
    /// and thread of its own).
    struct QueueService
    {
        grpc::Service* service = nullptr;
        std::function<void(grpc::ServerCompletionQueue*)> serveOn; // once the server runs
        std::function<void()> stop; // before the server shuts down: nothing started from elsewhere
        std::function<bool()> idle; // none of its operations left on the queue
    };
    void addService(QueueService service) { m_extra.push_back(std::move(service)); } // before start
    quint16 port() const { return m_port; }
    int threads() const { return int(m_threads.size()); }
    /// SERVING / NOT_SERVING for "" and for envoy.service.ratelimit.v3.RateLimitService.
    void setServing(bool serving);
    /// Stops taking calls, waits up to `graceMs` for those in flight, then (whatever the grace)
    /// until every call being decided is finished, and joins the threads.
    void stop(int graceMs = 2000);

private:
    void poll(grpc::ServerCompletionQueue* queue);

    std::unique_ptr<HealthService> m_health;
    std::unique_ptr<grpc::Server> m_server;
    RlsService* m_service = nullptr;
    std::vector<QueueService> m_extra;
    std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> m_queues;
    std::vector<std::thread> m_threads;
    std::atomic<bool> m_stopping{false};
    quint16 m_port = 0;
};

} // namespace tollgate::service
