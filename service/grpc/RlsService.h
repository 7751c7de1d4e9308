#pragma once

#include "envoy/service/ratelimit/v3/rls.grpc.pb.h"
#include "service/decide/Decider.h"

#include <memory>

namespace tollgate::service {

class ServiceMetrics;

/// envoy.service.ratelimit.v3.RateLimitService on gRPC's callback API: each call is decided by
/// the Decider without a thread waiting for Redis, and finished from the I/O thread that got the
/// last reply, so calls never queue behind a Qt event loop.
class RlsService final : public envoy::service::ratelimit::v3::RateLimitService::CallbackService
{
public:
    RlsService(std::shared_ptr<const Decider> decider, std::shared_ptr<ServiceMetrics> metrics);

    grpc::ServerUnaryReactor*
    ShouldRateLimit(grpc::CallbackServerContext* context,
                    const envoy::service::ratelimit::v3::RateLimitRequest* request,
                    envoy::service::ratelimit::v3::RateLimitResponse* response) override;

private:
    std::shared_ptr<const Decider> m_decider;
    std::shared_ptr<ServiceMetrics> m_metrics;
};

/// The wire forms, for the service and its tests.
DecisionRequest fromProto(const envoy::service::ratelimit::v3::RateLimitRequest& request);
void toProto(const Decision& decision, envoy::service::ratelimit::v3::RateLimitResponse* response);

} // namespace tollgate::service
