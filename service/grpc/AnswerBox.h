#pragma once

#include "service/grpc/QueueTag.h"

#include <grpcpp/alarm.h>

#include <mutex>
#include <vector>

namespace grpc {
class ServerCompletionQueue;
}

namespace tollgate::service {

class RlsCall;

/// Calls answered on other threads (the thread of a decision's last Redis reply), finished on
/// the thread of their queue: one alarm wakes it for every answer posted meanwhile, and gRPC's
/// writes stay with its poller instead of moving between threads with each answer.
class AnswerBox final : public QueueTag
{
public:
    explicit AnswerBox(grpc::ServerCompletionQueue* queue) : m_queue(queue) {}

    /// Any thread: `call` is finished on the queue's thread, at its next turn.
    void post(RlsCall* call);
    void proceed(bool ok) override; // the alarm went off: finishes every call posted

private:
    grpc::ServerCompletionQueue* m_queue;
    grpc::Alarm m_alarm;
    std::mutex m_mutex;
    std::vector<RlsCall*> m_posted;    // under m_mutex
    bool m_armed = false;              // under m_mutex: the alarm is set
    std::vector<RlsCall*> m_finishing; // the queue's thread's own
};

} // namespace tollgate::service
