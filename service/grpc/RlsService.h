#pragma once

#include "envoy/service/ratelimit/v3/rls.grpc.pb.h"
#include "service/decide/Decider.h"

#include <atomic>
#include <memory>

namespace grpc {
class ServerCompletionQueue;
}

namespace tollgate::service {

class AnswerBox;
class ServiceMetrics;

/// envoy.service.ratelimit.v3.RateLimitService on gRPC's asynchronous API: GrpcServer's threads
/// each poll a completion queue of their own and decide the calls it delivers with the Decider
/// (service/grpc/RlsCall); the answer is made on the thread that got the last Redis reply and
/// finished on the queue's thread (at once, when nothing needs Redis). The request arrives
/// as bytes and is read as service/grpc/rls_wire.proto (values that are not UTF-8 are decided
/// too); reflection still describes Envoy's own messages.
class RlsService final
    : public envoy::service::ratelimit::v3::RateLimitService::WithRawMethod_ShouldRateLimit<
          envoy::service::ratelimit::v3::RateLimitService::Service>
{
public:
    RlsService(std::shared_ptr<const Decider> decider, std::shared_ptr<ServiceMetrics> metrics);
    ~RlsService() override;

    /// Asks `queue` for calls (its thread then hands every tag it gets, a QueueTag, on).
    void serveOn(grpc::ServerCompletionQueue* queue);

    /// Calls accepted and not yet finished; a queue may shut down only once this is 0 (a
    /// Finish on a queue that is shut down is fatal in gRPC).
    int callsDeciding() const { return m_deciding.load(); }

private:
    friend class RlsCall;

    std::shared_ptr<const Decider> m_decider;
    std::shared_ptr<ServiceMetrics> m_metrics;
    std::atomic<int> m_deciding{0};
    std::vector<std::unique_ptr<AnswerBox>> m_boxes; // one per queue
};

/// The wire forms: a request's bytes (nullopt when they are no RateLimitRequest), an answer.
std::optional<DecisionRequest> decisionRequestFromWire(const std::string& bytes);
void toProto(const Decision& decision, envoy::service::ratelimit::v3::RateLimitResponse* response);

} // namespace tollgate::service
