#pragma once

#include "envoy/service/ratelimit/v3/rls.grpc.pb.h"
#include "service/decide/Decider.h"

#include <memory>

namespace tollgate::service {

class ServiceMetrics;

/// envoy.service.ratelimit.v3.RateLimitService on gRPC's callback API: each call is decided by
/// the Decider without a thread waiting for Redis, and finished from the I/O thread that got the
/// last reply, so calls never queue behind a Qt event loop. The request arrives as bytes and is
/// read as service/grpc/rls_wire.proto (values that are not UTF-8 are decided too); reflection
/// still describes Envoy's own messages.
class RlsService final
    : public envoy::service::ratelimit::v3::RateLimitService::WithRawCallbackMethod_ShouldRateLimit<
          envoy::service::ratelimit::v3::RateLimitService::Service>
{
public:
    RlsService(std::shared_ptr<const Decider> decider, std::shared_ptr<ServiceMetrics> metrics);

    grpc::ServerUnaryReactor* ShouldRateLimit(grpc::CallbackServerContext* context,
                                              const grpc::ByteBuffer* request,
                                              grpc::ByteBuffer* response) override;

private:
    std::shared_ptr<const Decider> m_decider;
    std::shared_ptr<ServiceMetrics> m_metrics;
};

/// The wire forms: a request's bytes (nullopt when they are no RateLimitRequest), an answer.
std::optional<DecisionRequest> decisionRequestFromWire(const std::string& bytes);
void toProto(const Decision& decision, envoy::service::ratelimit::v3::RateLimitResponse* response);

} // namespace tollgate::service
