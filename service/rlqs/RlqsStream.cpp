#include "service/rlqs/RlqsStream.h"

namespace tollgate::service {

RlqsStream::RlqsStream(RlqsService* service, grpc::ServerCompletionQueue* queue)
    : m_service(service), m_queue(queue), m_stream(&m_context)
{
    m_service->m_streamsAlive.fetch_add(1);
    m_service->RequestStreamRateLimitQuotas(&m_context, &m_stream, m_queue, m_queue, &m_accept);
}

void RlqsStream::start(const Next& next)
{
    if (next.write)
        m_stream.Write(*next.write, &m_write);
    if (next.read)
        m_stream.Read(&m_incoming, &m_read);
    if (next.finish)
        m_stream.Finish(m_status, &m_finish);
}

void RlqsStream::finishIfDoneLocked(Next& next)
{
    if (m_readDone && !m_writing && !m_finishing) {
        m_finishing = true;
        ++m_pending;
        next.finish = true;
    }
}

void RlqsStream::send(rlqs::RateLimitQuotaResponse response)
{
    Next next;
    {
        std::lock_guard lock(m_mutex);
        if (m_finishing || m_id == 0)
            return;
        m_queueOut.push_back(std::move(response)); // a deque: the front stays where it is
        if (m_writing)
            return;
        m_writing = true;
        ++m_pending;
        next.write = &m_queueOut.front();
    }
    start(next);
}

void RlqsStream::done(Op op, bool ok)
{
    Next next;
    bool report = false;
    bool gone = false;
    quint64 id = 0;
    if (op == Op::Accept && ok) { // registered outside m_mutex: the service's lock comes first
        new RlqsStream(m_service, m_queue); // the next proxy's
        id = m_service->attach(this);
    }
    {
        std::lock_guard lock(m_mutex);
        --m_pending;
        switch (op) {
        case Op::Accept:
            if (!ok) { // the server shuts down: no call came
                gone = true;
                break;
            }
            m_id = id;
            ++m_pending;
            next.read = true;
            break;
        case Op::Read:
            if (ok && m_domain.isEmpty())
                m_domain = QByteArray::fromStdString(m_incoming.domain());
            if (ok && m_domain.isEmpty()) {
                m_status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                        "the stream's first report must name its domain");
                ok = false;
            }
            if (!ok) { // the proxy closed its side, or the call is cancelled
                m_readDone = true;
                finishIfDoneLocked(next);
                break;
            }
            report = true;
            break;
        case Op::Write:
            m_queueOut.pop_front();
            if (!ok) { // broken: nothing more will be written
                m_queueOut.clear();
                m_readDone = true;
            }
            if (!m_queueOut.empty() && !m_finishing) {
                ++m_pending;
                next.write = &m_queueOut.front();
            } else {
                m_writing = false;
                finishIfDoneLocked(next);
            }
            break;
        case Op::Finish:
            break;
        }
        gone = gone || (m_finishing && m_pending == 0);
    }
    if (report) {
        m_service->report(m_id, m_domain, m_incoming); // copies what it keeps
        {
            std::lock_guard lock(m_mutex);
            ++m_pending;
        }
        next.read = true;
    }
    if (gone) {
        if (m_id != 0)
            m_service->detach(m_id); // no send() after this
        m_service->m_streamsAlive.fetch_sub(1);
        delete this;
        return;
    }
    start(next);
}

} // namespace tollgate::service
