#include "service/grpc/RlsClient.h"

#include "envoy/service/ratelimit/v3/rls.grpc.pb.h"

#include "tollgate/Result.h"

#include <grpcpp/grpcpp.h>

namespace tollgate::service {

namespace rls = envoy::service::ratelimit::v3;

struct RlsClient::Channel
{
    std::unique_ptr<rls::RateLimitService::Stub> stub;
};

namespace {

// What one call needs alive until its answer.
struct Call
{
    grpc::ClientContext context;
    rls::RateLimitRequest request;
    rls::RateLimitResponse response;
};

void toProto(const DecisionRequest& plain, rls::RateLimitRequest* request)
{
    request->set_domain(plain.domain.toStdString());
    request->set_hits_addend(quint32(plain.hitsAddend));
    for (const RequestDescriptor& descriptor : plain.descriptors) {
        auto* out = request->add_descriptors();
        for (const RequestEntry& entry : descriptor.entries) {
            auto* pair = out->add_entries();
            pair->set_key(entry.key.toStdString());
            pair->set_value(entry.value.toStdString());
        }
        if (descriptor.hitsAddend)
            out->mutable_hits_addend()->set_value(*descriptor.hitsAddend);
    }
}

} // namespace

RlsClient::RlsClient(const QString& target) : m_channel(std::make_unique<Channel>())
{
    m_channel->stub = rls::RateLimitService::NewStub(
        grpc::CreateChannel(target.toStdString(), grpc::InsecureChannelCredentials()));
}

RlsClient::~RlsClient() = default;

void RlsClient::decide(const DecisionRequest& request, QObject* context,
                       std::function<void(Answer)> done)
{
    auto* call = new Call;
    call->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    toProto(request, &call->request);
    const Context target(context); // posts to the object's thread, dropped if it is gone
    m_channel->stub->async()->ShouldRateLimit(
        &call->context, &call->request, &call->response,
        [call, target, done = std::move(done)](grpc::Status status) {
            Answer answer;
            answer.ok = status.ok();
            if (status.ok())
                answer.code = Code(int(call->response.overall_code()));
            else
                answer.error = QString::fromStdString(status.error_message());
            delete call;
            target.post([done, answer] { done(answer); });
        });
}

} // namespace tollgate::service
