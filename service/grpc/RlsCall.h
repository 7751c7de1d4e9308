#pragma once

#include "service/decide/Decision.h"
#include "service/grpc/QueueTag.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/async_unary_call.h>
#include <grpcpp/support/byte_buffer.h>

#include <atomic>
#include <chrono>

namespace tollgate::service {

class AnswerBox;
class RlsService;

/// One ShouldRateLimit call: asked for on a queue, decided, answered, then finished on that
/// queue's thread (gRPC's writes stay on its poller: an answer made on the thread of the last
/// Redis reply goes through the queue's AnswerBox). Its tag is the call itself.
class RlsCall final : public QueueTag
{
public:
    RlsCall(RlsService* service, grpc::ServerCompletionQueue* queue, AnswerBox* box);

    void proceed(bool ok) override;
    /// On the queue's thread, once answered: hands the answer to gRPC.
    void finish();

private:
    using Clock = std::chrono::steady_clock;
    enum class Stage
    {
        Deciding, // the decider runs on the queue's thread
        Returned, // it returned before the answer came
        Answered  // the answer is made
    };

    double seconds() const;
    void decide();
    /// Any thread: makes the answer, then finishes it (on the queue's thread).
    void answer(Result<Decision> decision);
    void answered(bool atDeadline);

    RlsService* m_service;
    grpc::ServerCompletionQueue* m_queue;
    AnswerBox* m_box;
    grpc::ServerContext m_context;
    grpc::ByteBuffer m_request;
    grpc::ServerAsyncResponseWriter<grpc::ByteBuffer> m_writer;
    QByteArray m_domain;
    Clock::time_point m_start;
    grpc::ByteBuffer m_answer;
    grpc::Status m_status;
    std::atomic<Stage> m_stage{Stage::Deciding};
    bool m_finishing = false;
};

} // namespace tollgate::service
