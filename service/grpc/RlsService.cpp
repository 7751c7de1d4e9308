#include "service/grpc/RlsService.h"

#include "core/http/RateLimitHeaders.h"
#include "service/grpc/AnswerBox.h"
#include "service/grpc/RlsCall.h"
#include "service/grpc/rls_wire.pb.h"
#include "service/metrics/ServiceMetrics.h"

#include <google/protobuf/util/json_util.h>

namespace tollgate::service {

namespace rls = envoy::service::ratelimit::v3;

namespace {

QByteArray bytes(const std::string& text)
{
    return QByteArray(text.data(), qsizetype(text.size()));
}

std::string str(const QByteArray& text)
{
    return std::string(text.constData(), size_t(text.size()));
}

rls::RateLimitResponse::Code codeOf(Code code)
{
    switch (code) {
    case Code::Ok:
        return rls::RateLimitResponse::OK;
    case Code::OverLimit:
        return rls::RateLimitResponse::OVER_LIMIT;
    case Code::Unknown:
        break;
    }
    return rls::RateLimitResponse::UNKNOWN;
}

void addHeader(rls::RateLimitResponse* response, const char* key, const QByteArray& value)
{
    if (value.isEmpty())
        return;
    auto* header = response->add_response_headers_to_add();
    header->set_key(key);
    header->set_value(str(value));
}

} // namespace

std::optional<DecisionRequest> decisionRequestFromWire(const std::string& wire)
{
    tollgate::wire::RateLimitRequest request;
    if (!request.ParseFromString(wire))
        return std::nullopt;
    DecisionRequest plain;
    plain.domain = bytes(request.domain());
    plain.hitsAddend = request.hits_addend();
    plain.descriptors.reserve(size_t(request.descriptors_size()));
    for (const auto& descriptor : request.descriptors()) {
        RequestDescriptor each;
        for (const auto& entry : descriptor.entries())
            each.entries.push_back({bytes(entry.key()), bytes(entry.value())});
        if (descriptor.has_limit()) {
            const int unit = descriptor.limit().unit();
            each.limit = RateLimitSpec{unit >= 0 && unit <= 7 ? LimitUnit(unit) : LimitUnit::Unknown,
                                       qint64(descriptor.limit().requests_per_unit()),
                                       {}};
        }
        if (descriptor.has_hits_addend())
            each.hitsAddend = descriptor.hits_addend().value();
        plain.descriptors.push_back(std::move(each));
    }
    return plain;
}

void toProto(const Decision& decision, rls::RateLimitResponse* response)
{
    response->set_overall_code(codeOf(decision.overall));
    for (const DescriptorDecision& status : decision.statuses) {
        auto* out = response->add_statuses();
        out->set_code(codeOf(status.code));
        if (status.currentLimit) {
            auto* limit = out->mutable_current_limit();
            limit->set_requests_per_unit(
                quint32(std::min<qint64>(status.currentLimit->requestsPerUnit, UINT32_MAX)));
            limit->set_unit(rls::RateLimitResponse::RateLimit::Unit(int(status.currentLimit->unit)));
            limit->set_name(status.currentLimit->name.toStdString());
        }
        out->set_limit_remaining(quint32(std::clamp<qint64>(status.limitRemaining, 0, UINT32_MAX)));
        const qint64 resetMs = std::max<qint64>(status.durationUntilResetMs, 0);
        if (status.currentLimit) {
            auto* reset = out->mutable_duration_until_reset();
            reset->set_seconds(resetMs / 1000);
            reset->set_nanos(int(resetMs % 1000) * 1'000'000);
        }
    }
    if (!decision.dynamicMetadata.isEmpty()) // built by the service: always valid JSON
        (void)google::protobuf::util::JsonStringToMessage(str(decision.dynamicMetadata),
                                                          response->mutable_dynamic_metadata());
    if (decision.headline && decision.headlinePolicy) {
        const RateLimitHeaders headers = rateLimitHeaders(*decision.headlinePolicy, *decision.headline);
        addHeader(response, "RateLimit-Policy", headers.policy);
        addHeader(response, "RateLimit", headers.rateLimit);
        if (decision.overall == Code::OverLimit)
            addHeader(response, "Retry-After", headers.retryAfter);
    }
}

RlsService::RlsService(std::shared_ptr<const Decider> decider,
                       std::shared_ptr<ServiceMetrics> metrics)
    : m_decider(std::move(decider)), m_metrics(std::move(metrics))
{
}

RlsService::~RlsService() = default;

void RlsService::serveOn(grpc::ServerCompletionQueue* queue)
{
    AnswerBox* box = m_boxes.emplace_back(std::make_unique<AnswerBox>(queue)).get();
    // Several asked for at once: a burst of new calls does not wait for one to be re-asked.
    for (int i = 0; i < 16; ++i)
        new RlsCall(this, queue, box);
}

} // namespace tollgate::service
