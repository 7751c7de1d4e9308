#include "service/grpc/RlsCall.h"

#include "service/grpc/AnswerBox.h"
#include "service/grpc/RlsService.h"
#include "service/metrics/ServiceMetrics.h"

namespace tollgate::service {

namespace rls = envoy::service::ratelimit::v3;

namespace {

grpc::StatusCode statusOf(const Error& error)
{
    switch (error.kind) {
    case ErrorKind::InvalidInput:
        return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorKind::NoPerm:
        return grpc::StatusCode::PERMISSION_DENIED;
    default:
        break;
    }
    return grpc::StatusCode::UNAVAILABLE;
}

} // namespace

RlsCall::RlsCall(RlsService* service, grpc::ServerCompletionQueue* queue, AnswerBox* box)
    : m_service(service), m_queue(queue), m_box(box), m_writer(&m_context)
{
    m_service->RequestShouldRateLimit(&m_context, &m_request, &m_writer, m_queue, m_queue, this);
}

void RlsCall::proceed(bool ok)
{
    if (m_finishing || !ok) { // finished, or the server shuts down before a call came
        delete this;
        return;
    }
    new RlsCall(m_service, m_queue, m_box); // the next call on this queue
    m_start = Clock::now();
    m_finishing = true;
    m_service->m_deciding.fetch_add(1);
    decide();
}

double RlsCall::seconds() const
{
    return std::chrono::duration<double>(Clock::now() - m_start).count();
}

void RlsCall::finish()
{
    RlsService* service = m_service; // `this` may be gone once Finish is queued
    if (m_status.ok())
        m_writer.Finish(m_answer, m_status, this);
    else
        m_writer.FinishWithError(m_status, this);
    service->m_deciding.fetch_sub(1);
}

void RlsCall::decide()
{
    std::vector<grpc::Slice> slices;
    std::string bytes;
    if (m_request.Dump(&slices).ok()) {
        for (const grpc::Slice& slice : slices)
            bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    std::optional<DecisionRequest> plain = decisionRequestFromWire(bytes);
    if (!plain) {
        m_service->m_metrics->recordDecision({}, "error", "grpc", seconds(), 0);
        m_status =
            grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                         "the request is not an envoy.service.ratelimit.v3.RateLimitRequest");
        finish();
        return;
    }
    m_domain = plain->domain;
    m_service->m_decider->decide(
        *plain, [this](Result<Decision> decision) { answer(std::move(decision)); });
    // Answered meanwhile (from memory, or without Redis): finished here, no hand-back.
    if (m_stage.exchange(Stage::Returned) == Stage::Answered)
        finish();
}

void RlsCall::answer(Result<Decision> decision)
{
    const std::shared_ptr<ServiceMetrics>& metrics = m_service->m_metrics;
    if (!decision) {
        metrics->recordDecision(m_domain, "error", "grpc", seconds(), 0);
        m_status = grpc::Status(statusOf(decision.error()), decision.error().message.toStdString());
    } else {
        rls::RateLimitResponse answer;
        toProto(*decision, &answer);
        const std::string out = answer.SerializeAsString();
        grpc::Slice slice(out);
        m_answer = grpc::ByteBuffer(&slice, 1);
        metrics->recordDecision(m_domain,
                                decision->overall == Code::OverLimit ? "over_limit" : "ok", "grpc",
                                seconds(), decision->redisCalls);
    }
    answered(decision && decision->atDeadline);
}

void RlsCall::answered(bool atDeadline)
{
    // Still inside decide() on the queue's thread: decide() finishes it when the decider
    // returns. Later, from the thread of the last reply: the queue's thread finishes it; at the
    // deadline, this thread does, so that it waits for no other (gRPC takes it from any).
    if (m_stage.exchange(Stage::Answered) == Stage::Deciding)
        return;
    if (atDeadline)
        finish();
    else
        m_box->post(this);
}

} // namespace tollgate::service
