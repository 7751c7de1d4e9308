#include "service/grpc/AnswerBox.h"

#include "service/grpc/RlsCall.h"

#include <grpc/support/time.h>

namespace tollgate::service {

void AnswerBox::post(RlsCall* call)
{
    {
        std::lock_guard lock(m_mutex);
        m_posted.push_back(call);
        if (m_armed)
            return; // already due: it takes this one too
        m_armed = true;
    }
    // Due at once: the queue's thread wakes (or, busy, takes it with its next event).
    m_alarm.Set(m_queue, gpr_inf_past(GPR_CLOCK_MONOTONIC), this);
}

void AnswerBox::proceed(bool)
{
    {
        std::lock_guard lock(m_mutex);
        m_finishing.swap(m_posted);
        m_armed = false; // it went off: it may be set again
    }
    for (RlsCall* call : m_finishing)
        call->finish();
    m_finishing.clear();
}

} // namespace tollgate::service
