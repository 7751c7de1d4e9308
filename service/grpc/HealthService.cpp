#include "service/grpc/HealthService.h"

#include <chrono>

namespace tollgate::service {

using grpc::health::v1::HealthCheckResponse;

HealthService::HealthService(std::string serviceName) : m_serviceName(std::move(serviceName)) {}

void HealthService::setServing(bool serving)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_serving == serving)
            return;
        m_serving = serving;
    }
    m_changed.notify_all();
}

void HealthService::shutdown()
{
    {
        std::lock_guard lock(m_mutex);
        m_shutdown = true;
    }
    m_changed.notify_all();
}

HealthCheckResponse::ServingStatus HealthService::statusOf(const std::string& name) const
{
    if (!name.empty() && name != m_serviceName)
        return HealthCheckResponse::SERVICE_UNKNOWN;
    return m_serving && !m_shutdown ? HealthCheckResponse::SERVING
                                    : HealthCheckResponse::NOT_SERVING;
}

grpc::Status HealthService::Check(grpc::ServerContext*,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  HealthCheckResponse* response)
{
    std::lock_guard lock(m_mutex);
    const auto status = statusOf(request->service());
    if (status == HealthCheckResponse::SERVICE_UNKNOWN)
        return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service");
    response->set_status(status);
    return grpc::Status::OK;
}

grpc::Status HealthService::Watch(grpc::ServerContext* context,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  grpc::ServerWriter<HealthCheckResponse>* writer)
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        HealthCheckResponse response;
        response.set_status(statusOf(request->service()));
        const auto sent = response.status();
        lock.unlock();
        if (!writer->Write(response))
            return grpc::Status::OK; // the client went away
        lock.lock();
        // Woken by a change; else every second, to notice a cancelled call.
        while (!m_shutdown && statusOf(request->service()) == sent) {
            if (context->IsCancelled())
                return grpc::Status::CANCELLED;
            m_changed.wait_for(lock, std::chrono::seconds(1));
        }
        if (m_shutdown) {
            response.set_status(HealthCheckResponse::NOT_SERVING);
            lock.unlock();
            writer->Write(response);
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is stopping");
        }
    }
}

} // namespace tollgate::service
