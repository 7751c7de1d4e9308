#include "service/grpc/GrpcServer.h"

#include "service/grpc/HealthService.h"
#include "service/grpc/QueueTag.h"
#include "service/grpc/RlsService.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <pthread.h>

namespace tollgate::service {

namespace {
const char kServiceName[] = "envoy.service.ratelimit.v3.RateLimitService";

// While stopping, a queue idle this long with no call being decided has no event left to come.
constexpr auto kIdleBeforeShutdown = std::chrono::milliseconds(100);
} // namespace

namespace {

// How long a client's connection lives (docs/service.md, "Connections"): a proxy gone without a
// word is noticed by keepalive PINGs, and every connection is closed gracefully after a while so
// that proxies spread over instances added since (a graceful close lets calls in flight finish).
void setConnectionLimits(grpc::ServerBuilder& builder)
{
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60'000);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20'000);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    // Clients may PING every 10 s without calls (Envoy's connection_keepalive) before gRPC
    // calls it abuse and closes the connection.
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10'000);
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, 15 * 60'000);
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, 30 * 60'000);
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS, 30'000);
}

} // namespace

GrpcServer::GrpcServer() = default;

GrpcServer::~GrpcServer()
{
    stop(0);
}

Status GrpcServer::start(const QString& address, RlsService* service, int threads)
{
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(address.toStdString(), grpc::InsecureServerCredentials(), &port);
    setConnectionLimits(builder);
    builder.RegisterService(service);
    for (const QueueService& extra : m_extra)
        builder.RegisterService(extra.service);
    m_health = std::make_unique<HealthService>(kServiceName);
    builder.RegisterService(m_health.get());
    for (int i = 0; i < std::max(threads, 1); ++i)
        m_queues.push_back(builder.AddCompletionQueue());
    m_server = builder.BuildAndStart();
    if (!m_server || port == 0) {
        m_server.reset();
        m_queues.clear();
        return Error{ErrorKind::Io,
                     QStringLiteral("gRPC cannot listen on %1 (in use, not permitted, or not "
                                    "host:port)")
                         .arg(address)};
    }
    m_port = quint16(port);
    for (const QueueService& extra : m_extra)
        extra.serveOn(m_queues.front().get());
    m_service = service;
    for (const auto& queue : m_queues) {
        m_service->serveOn(queue.get());
        m_threads.emplace_back([this, queue = queue.get(), n = m_threads.size()] {
            pthread_setname_np(pthread_self(), ("rls-" + std::to_string(n)).c_str());
            poll(queue);
        });
    }
    setServing(false);
    return Unit{};
}

void GrpcServer::poll(grpc::ServerCompletionQueue* queue)
{
    void* tag = nullptr;
    bool ok = false;
    for (;;) {
        const auto deadline = std::chrono::system_clock::now() + kIdleBeforeShutdown;
        switch (queue->AsyncNext(&tag, &ok, deadline)) {
        case grpc::CompletionQueue::GOT_EVENT:
            static_cast<QueueTag*>(tag)->proceed(ok);
            break;
        case grpc::CompletionQueue::TIMEOUT:
            // Only now can nothing more be queued here: the server takes no call and no call
            // is waiting for its answer.
            if (m_stopping.load() && m_service->callsDeciding() == 0 &&
                std::all_of(m_extra.begin(), m_extra.end(),
                            [](const QueueService& extra) { return extra.idle(); }))
                queue->Shutdown();
            break;
        case grpc::CompletionQueue::SHUTDOWN:
            return;
        }
    }
}

void GrpcServer::setServing(bool serving)
{
    if (m_health)
        m_health->setServing(serving);
}

void GrpcServer::stop(int graceMs)
{
    if (!m_server)
        return;
    m_health->shutdown();
    for (const QueueService& extra : m_extra)
        extra.stop();
    m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(graceMs));
    m_stopping.store(true);
    for (std::thread& thread : m_threads)
        thread.join();
    m_threads.clear();
    m_server.reset();
    m_queues.clear();
}

} // namespace tollgate::service
