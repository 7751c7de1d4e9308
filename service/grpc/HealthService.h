#pragma once

#include "health/v1/health.grpc.pb.h"

#include <condition_variable>
#include <mutex>
#include <string>

namespace tollgate::service {

/// grpc.health.v1.Health for the server ("" and the rate limit service), on gRPC's synchronous
/// API: gRPC's own default health service is a callback service, and any callback service gives
/// the server pollers of its own, which hand every rate limit call over to another thread
/// (docs/performance.md measures what that cost). Check and Watch are rare; a Watch holds one of
/// the synchronous threads while it lasts.
class HealthService final : public grpc::health::v1::Health::Service
{
public:
    explicit HealthService(std::string serviceName);

    void setServing(bool serving);
    /// Ends every Watch (before the server shuts down, which waits for them).
    void shutdown();

    grpc::Status Check(grpc::ServerContext* context,
                       const grpc::health::v1::HealthCheckRequest* request,
                       grpc::health::v1::HealthCheckResponse* response) override;
    grpc::Status Watch(grpc::ServerContext* context,
                       const grpc::health::v1::HealthCheckRequest* request,
                       grpc::ServerWriter<grpc::health::v1::HealthCheckResponse>* writer) override;

private:
    grpc::health::v1::HealthCheckResponse::ServingStatus statusOf(const std::string& name) const;

    const std::string m_serviceName;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_serving = false;
    bool m_shutdown = false;
};

} // namespace tollgate::service
