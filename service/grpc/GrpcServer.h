#pragma once

#include "core/redis/Result.h"

#include <memory>

namespace grpc {
class Server;
class Service;
} // namespace grpc

namespace tollgate::service {

/// The gRPC server: the rate limit service, grpc.health.v1.Health (gRPC's own, its status set
/// by setServing) and server reflection (so grpcurl can list and call it). Plain-text HTTP/2.
class GrpcServer
{
public:
    GrpcServer();
    ~GrpcServer();

    /// Listens on "host:port" (port 0: any free one) and starts; Io error when it cannot bind.
    Status start(const QString& address, grpc::Service* service);
    quint16 port() const { return m_port; }
    /// SERVING / NOT_SERVING for "" and for envoy.service.ratelimit.v3.RateLimitService.
    void setServing(bool serving);
    /// Stops taking calls and waits up to `graceMs` for those in flight.
    void stop(int graceMs = 2000);

private:
    std::unique_ptr<grpc::Server> m_server;
    quint16 m_port = 0;
};

} // namespace tollgate::service
