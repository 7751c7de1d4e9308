#include "bench/service/GrpcFloor.h"

#include "envoy/service/ratelimit/v3/rls.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <csignal>
#include <cstdio>
#include <thread>
#include <vector>

namespace tollgate::bench {

namespace {

namespace rls = envoy::service::ratelimit::v3;
using RawService = rls::RateLimitService::WithRawMethod_ShouldRateLimit<rls::RateLimitService::Service>;

// One call: asked for, then answered OK at once.
class FloorCall
{
public:
    FloorCall(RawService* service, grpc::ServerCompletionQueue* queue, const std::string* answer)
        : m_service(service), m_queue(queue), m_answer(answer), m_writer(&m_context)
    {
        m_service->RequestShouldRateLimit(&m_context, &m_request, &m_writer, m_queue, m_queue,
                                          this);
    }

    void proceed(bool ok)
    {
        if (m_answered || !ok) {
            delete this;
            return;
        }
        new FloorCall(m_service, m_queue, m_answer);
        std::vector<grpc::Slice> slices; // read, as tollgated reads it, then dropped
        (void)m_request.Dump(&slices);
        grpc::Slice slice(*m_answer);
        m_answered = true;
        m_writer.Finish(grpc::ByteBuffer(&slice, 1), grpc::Status::OK, this);
    }

private:
    RawService* m_service;
    grpc::ServerCompletionQueue* m_queue;
    const std::string* m_answer;
    grpc::ServerContext m_context;
    grpc::ByteBuffer m_request;
    grpc::ServerAsyncResponseWriter<grpc::ByteBuffer> m_writer;
    bool m_answered = false;
};

} // namespace

int serveGrpcFloor()
{
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGTERM);
    sigaddset(&stopSignals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr); // before any thread: all inherit it

    rls::RateLimitResponse ok;
    ok.set_overall_code(rls::RateLimitResponse::OK);
    const std::string answer = ok.SerializeAsString();

    RawService service;
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service);
    std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues;
    const unsigned threads = std::max(std::thread::hardware_concurrency() / 2, 1u); // as tollgated
    for (unsigned i = 0; i < threads; ++i)
        queues.push_back(builder.AddCompletionQueue());
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    if (!server || port == 0) {
        std::fprintf(stderr, "gRPC floor: cannot listen\n");
        return 1;
    }
    std::vector<std::thread> pollers;
    for (const auto& queue : queues) {
        for (int i = 0; i < 16; ++i)
            new FloorCall(&service, queue.get(), &answer);
        pollers.emplace_back([queue = queue.get()] {
            void* tag = nullptr;
            bool ok = false;
            while (queue->Next(&tag, &ok))
                static_cast<FloorCall*>(tag)->proceed(ok);
        });
    }
    // The lines bench/service/TollgatedProcess reads from a tollgated.
    std::fprintf(stderr, "serving: gRPC port %d, HTTP port 0\n"
                         "tollgated: policies: none (the gRPC floor)\n", port);
    std::fflush(stderr);
    int signal = 0;
    sigwait(&stopSignals, &signal);
    server->Shutdown(std::chrono::system_clock::now());
    for (const auto& queue : queues)
        queue->Shutdown(); // every call is answered at once: none can still Finish
    for (std::thread& poller : pollers)
        poller.join();
    return 0;
}

} // namespace tollgate::bench
