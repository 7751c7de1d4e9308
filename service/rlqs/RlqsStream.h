#pragma once

#include "service/grpc/QueueTag.h"
#include "service/rlqs/RlqsService.h"

#include <grpcpp/grpcpp.h>

namespace tollgate::service {

/// One proxy's stream on gRPC's asynchronous API: asked for on the service's completion queue,
/// then one read at a time (each report handed to the service) and one write at a time (the
/// responses send() queues, from whichever thread). It finishes once the proxy has stopped
/// sending and every queued response is written, and is deleted when its last operation has
/// come back. The queue's thread hands each operation's tag (a QueueTag) on.
class RlqsStream
{
public:
    enum class Op
    {
        Accept,
        Read,
        Write,
        Finish
    };
    struct Tag final : QueueTag
    {
        Tag(RlqsStream* stream, Op op) : stream(stream), op(op) {}
        void proceed(bool ok) override { stream->done(op, ok); }
        RlqsStream* stream;
        Op op;
    };

    RlqsStream(RlqsService* service, grpc::ServerCompletionQueue* queue);
    /// Queues a response; false once the stream is finishing (it is dropped).
    void send(rlqs::RateLimitQuotaResponse response);

private:
    void done(Op op, bool ok);
    /// Operations to start once m_mutex is released (gRPC calls are not made under it).
    struct Next
    {
        const rlqs::RateLimitQuotaResponse* write = nullptr;
        bool read = false;
        bool finish = false;
    };
    void start(const Next& next);
    void finishIfDoneLocked(Next& next);

    RlqsService* m_service;
    grpc::ServerCompletionQueue* m_queue;
    grpc::ServerContext m_context;
    grpc::ServerAsyncReaderWriter<rlqs::RateLimitQuotaResponse, rlqs::RateLimitQuotaUsageReports> m_stream;
    Tag m_accept{this, Op::Accept}, m_read{this, Op::Read}, m_write{this, Op::Write}, m_finish{this, Op::Finish};
    quint64 m_id = 0;
    rlqs::RateLimitQuotaUsageReports m_incoming;
    QByteArray m_domain; // the first report's
    std::mutex m_mutex;  // the ones below
    std::deque<rlqs::RateLimitQuotaResponse> m_queueOut;
    int m_pending = 1;   // operations in flight (the accept first)
    bool m_writing = false;
    bool m_readDone = false;
    bool m_finishing = false;
    grpc::Status m_status;
};

} // namespace tollgate::service
