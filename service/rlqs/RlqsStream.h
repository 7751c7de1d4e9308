#pragma once

#include "service/rlqs/RlqsService.h"

namespace tollgate::service {

/// One proxy's stream: reads its reports one after the other and hands each to the service;
/// writes the responses queued by send() one at a time (the reactor allows one write in
/// flight), from whichever thread queued them. It finishes once the proxy has stopped sending
/// and every queued response is written, and unregisters itself before it is deleted.
class RlqsStream final
    : public grpc::ServerBidiReactor<rlqs::RateLimitQuotaUsageReports, rlqs::RateLimitQuotaResponse>
{
public:
    RlqsStream(RlqsService* service, quint64 id);
    void send(rlqs::RateLimitQuotaResponse response);

    void OnReadDone(bool ok) override;
    void OnWriteDone(bool ok) override;
    void OnDone() override;

private:
    /// Whether the stream is to finish now (read side done, nothing to write); marks it.
    bool finishingLocked();

    RlqsService* m_service;
    quint64 m_id;
    rlqs::RateLimitQuotaUsageReports m_incoming;
    QByteArray m_domain; // the first report's
    std::mutex m_mutex;  // the four below
    std::deque<rlqs::RateLimitQuotaResponse> m_queue;
    bool m_writing = false;
    bool m_readDone = false;
    bool m_finished = false;
};

} // namespace tollgate::service
