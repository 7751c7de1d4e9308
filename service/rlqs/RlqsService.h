#pragma once

#include "envoy/service/rate_limit_quota/v3/rlqs.grpc.pb.h"
#include "service/rlqs/Assignment.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Moderation.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <atomic>
#include <thread>

namespace tollgate {
class Client;
}

namespace tollgate::service {

class Decider;
class PolicyBook;
class RlqsStream;

namespace rlqs = envoy::service::rate_limit_quota::v3;

/// envoy.service.rate_limit_quota.v3 (RLQS): proxies running Envoy's rate_limit_quota filter
/// report each bucket's usage every few seconds on one stream; every report batch is counted
/// with one usage.lua call and answered with each bucket's assignment (service/rlqs/Assignment).
/// A bucket's first report subscribes the stream to it: a ban, an unban, a reset, an override
/// (the events channel), a policy or configuration change, and the end of the bucket's window
/// push new assignments to every stream subscribed, within the tick below; a bucket without
/// requests for its domain's abandon_after is abandoned.
///
/// Streams are served on gRPC's asynchronous API, on the first queue of the gRPC server and by
/// its thread (GrpcServer::addService): a stream is written to whenever an assignment is
/// pushed, from whichever thread pushes it. Pushes, window ends and idle buckets are handled by
/// a thread of its own ("rlqs") that wakes every 100 ms.
class RlqsService final : public rlqs::RateLimitQuotaService::AsyncService
{
public:
    RlqsService(Client* client, KeySchema schema, std::shared_ptr<const Decider> decider,
                std::shared_ptr<PolicyBook> policies);
    ~RlqsService() override;

    /// Serves the streams on `queue` (the server's, polled by its thread) from now on.
    void serveOn(grpc::ServerCompletionQueue* queue);
    /// Pushes nothing more (before the server shuts down, then the queue).
    void stop();
    /// No stream left with an operation on the queue (each is gone once the server cancels it).
    bool idle() const { return m_streamsAlive.load() == 0; }

    /// An event of the events channel (any thread): buckets of its subject are pushed again.
    void onEvent(const LimitEvent& event);

private:
    friend class RlqsStream;
    struct Subscriber
    {
        qint64 lastActiveMs = 0; // the last report with a request in it (steady ms)
        qint64 lastReportMs = 0;
        double usagePerMs = 0;   // the rate of its last report (allowed, per ms)
        std::optional<Assignment> sent;
    };
    struct Bucket
    {
        QByteArray domain;
        BucketId id;
        BucketTarget target;
        std::map<quint64, Subscriber> subscribers; // by stream
        qint64 refreshAtMs = 0; // the window's end: pushed again then (0: none)
    };
    using Responses = std::map<quint64, rlqs::RateLimitQuotaResponse>;

    // From a stream's reactor.
    void report(quint64 stream, const QByteArray& domain, const rlqs::RateLimitQuotaUsageReports& reports);
    quint64 attach(RlqsStream* stream); // its id
    void detach(quint64 stream);

    void tick();
    struct Refresh // counted buckets to ask usage.lua about again (no usage added)
    {
        std::vector<QByteArray> keys;
        std::vector<UsageItem> items;
    };
    /// `keys`' blanket assignments to every subscriber into `out`, the counted ones into
    /// `counted`; refresh() then asks their states and pushes them (without m_mutex).
    void refreshLocked(const std::vector<QByteArray>& keys, Responses& out, Refresh& counted);
    void refresh(Refresh counted);
    /// Assignments from states: to `onlyStream`'s subscription, or to every subscriber (0).
    void assign(const std::vector<QByteArray>& keys, const std::vector<UsageState>& states,
                quint64 onlyStream);
    void blanketLocked(Bucket& bucket, quint64 stream, Responses& out);
    void deliver(Responses responses);
    /// `assign` for a script's reply, unless the service is gone by then.
    Callback<std::vector<UsageState>> assigner(std::vector<QByteArray> keys, quint64 onlyStream);
    const QuotaDomainSettings& settingsLocked(const QByteArray& domain);
    void refreshConfigLocked();

    Client* m_client;
    KeySchema m_schema;
    std::shared_ptr<const Decider> m_decider;
    std::shared_ptr<PolicyBook> m_policies;

    std::mutex m_mutex; // everything below
    std::map<QByteArray, Bucket> m_buckets; // by domain '\0' bucketIdText
    std::map<quint64, RlqsStream*> m_streams;
    quint64 m_nextStream = 1;
    std::deque<LimitEvent> m_events;
    std::shared_ptr<const ServiceConfig> m_config;
    PolicyBook::Snapshot m_policySnapshot;
    std::map<QByteArray, QuotaDomainSettings> m_settings;
    bool m_stopping = false;
    // Script replies may arrive after the service is gone: they reach it through this.
    struct Guard
    {
        std::mutex mutex;
        RlqsService* service = nullptr;
    };
    std::shared_ptr<Guard> m_guard;
    std::condition_variable m_wake;
    std::thread m_thread;
    std::atomic<int> m_streamsAlive{0}; // RlqsStream objects, the one awaiting a proxy included
};

} // namespace tollgate::service
