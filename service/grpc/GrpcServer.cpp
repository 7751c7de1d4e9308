#include "service/grpc/GrpcServer.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <chrono>

namespace tollgate::service {

namespace {
const char kServiceName[] = "envoy.service.ratelimit.v3.RateLimitService";
}

GrpcServer::GrpcServer() = default;

GrpcServer::~GrpcServer()
{
    stop(0);
}

Status GrpcServer::start(const QString& address, grpc::Service* service)
{
    grpc::EnableDefaultHealthCheckService(true);
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(address.toStdString(), grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service);
    m_server = builder.BuildAndStart();
    if (!m_server || port == 0) {
        m_server.reset();
        return Error{ErrorKind::Io,
                     QStringLiteral("gRPC cannot listen on %1 (in use, not permitted, or not "
                                    "host:port)")
                         .arg(address)};
    }
    m_port = quint16(port);
    setServing(false);
    return Unit{};
}

void GrpcServer::setServing(bool serving)
{
    if (!m_server || !m_server->GetHealthCheckService())
        return;
    m_server->GetHealthCheckService()->SetServingStatus(serving);
    m_server->GetHealthCheckService()->SetServingStatus(kServiceName, serving);
}

void GrpcServer::stop(int graceMs)
{
    if (!m_server)
        return;
    m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(graceMs));
    m_server.reset();
}

} // namespace tollgate::service
