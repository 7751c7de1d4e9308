#include "service/rlqs/RlqsStream.h"

namespace tollgate::service {

RlqsStream::RlqsStream(RlqsService* service, quint64 id) : m_service(service), m_id(id)
{
    m_service->attach(m_id, this);
    StartRead(&m_incoming);
}

// gRPC may run a reaction inline when an operation fails at once (a cancelled stream): every
// StartWrite and Finish is made without m_mutex held, as the last thing the caller does.
void RlqsStream::send(rlqs::RateLimitQuotaResponse response)
{
    const rlqs::RateLimitQuotaResponse* next = nullptr;
    {
        std::lock_guard lock(m_mutex);
        if (m_finished)
            return;
        m_queue.push_back(std::move(response)); // a deque: the front stays where it is
        if (m_writing)
            return;
        m_writing = true;
        next = &m_queue.front();
    }
    StartWrite(next);
}

void RlqsStream::OnReadDone(bool ok)
{
    if (!ok) { // the proxy closed its side, or the call is cancelled
        bool finish = false;
        {
            std::lock_guard lock(m_mutex);
            m_readDone = true;
            finish = finishingLocked();
        }
        if (finish)
            Finish(grpc::Status::OK);
        return;
    }
    if (m_domain.isEmpty())
        m_domain = QByteArray::fromStdString(m_incoming.domain());
    if (m_domain.isEmpty()) {
        {
            std::lock_guard lock(m_mutex);
            m_readDone = m_finished = true;
        }
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "the stream's first report must name its domain"));
        return;
    }
    m_service->report(m_id, m_domain, m_incoming);
    StartRead(&m_incoming);
}

void RlqsStream::OnWriteDone(bool ok)
{
    const rlqs::RateLimitQuotaResponse* next = nullptr;
    bool finish = false;
    {
        std::lock_guard lock(m_mutex);
        m_queue.pop_front();
        if (!ok) { // the stream is broken: nothing more will be written
            m_queue.clear();
            m_readDone = true;
        }
        if (!m_queue.empty() && !m_finished) {
            next = &m_queue.front();
        } else {
            m_writing = false;
            finish = finishingLocked();
        }
    }
    if (next)
        StartWrite(next);
    else if (finish)
        Finish(grpc::Status::OK);
}

bool RlqsStream::finishingLocked()
{
    if (!m_readDone || m_writing || m_finished)
        return false;
    m_finished = true;
    return true;
}

void RlqsStream::OnDone()
{
    m_service->detach(m_id);
    delete this;
}

} // namespace tollgate::service
