#include "bench/service/GrpcLoad.h"

#include "envoy/service/ratelimit/v3/rls.grpc.pb.h"

#include <grpcpp/grpcpp.h>
#include <sys/resource.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace tollgate::bench {

namespace rls = envoy::service::ratelimit::v3;

namespace {

using Clock = std::chrono::steady_clock;

// More requests than this outstanding in the open loop means the service stopped answering;
// the ones not sent count as errors instead of growing the queue without end.
constexpr int kOpenLoopCap = 65'536;

struct Call
{
    grpc::ClientContext context;
    rls::RateLimitRequest request;
    rls::RateLimitResponse response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<rls::RateLimitResponse>> reader;
    Clock::time_point due;
    int channel = 0;
};

class Runner
{
public:
    Runner(const GrpcLoadOptions& options, const RequestMaker& make)
        : m_options(options), m_make(make)
    {
    }
    ~Runner()
    {
        m_queue.Shutdown();
        void* tag = nullptr;
        bool ok = false;
        while (m_queue.Next(&tag, &ok))
            delete static_cast<Call*>(tag);
    }

    bool connect()
    {
        for (int c = 0; c < m_options.channels; ++c) {
            grpc::ChannelArguments args;
            // Channels with the same arguments share one connection; these get one each.
            args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
            args.SetInt("tollgate.bench_channel", c);
            auto channel = grpc::CreateCustomChannel(m_options.target.toStdString(),
                                                     grpc::InsecureChannelCredentials(), args);
            if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                           std::chrono::seconds(10))) {
                fail(QStringLiteral("gRPC channel %1 to %2 did not connect")
                         .arg(c)
                         .arg(m_options.target));
                return false;
            }
            m_stubs.push_back(rls::RateLimitService::NewStub(channel));
        }
        return true;
    }

    HitLoadFigures run()
    {
        const double cpuBefore = cpuSeconds(RUSAGE_SELF);
        m_start = Clock::now();
        m_end = m_start + m_options.duration;
        m_lastAnswer = m_start;
        if (m_options.ratePerSecond > 0)
            openLoop();
        else
            closedLoop();
        m_figures.seconds = std::chrono::duration<double>(m_lastAnswer - m_start).count();
        m_figures.cpuSeconds = cpuSeconds(RUSAGE_SELF) - cpuBefore;
        std::sort(m_figures.latenciesMs.begin(), m_figures.latenciesMs.end());
        return std::move(m_figures);
    }

    HitLoadFigures failure() { return std::move(m_figures); }

private:
    bool stopping(Clock::time_point now) const
    {
        return m_options.requests > 0 ? m_sent >= quint64(m_options.requests) : now >= m_end;
    }

    void fail(const QString& message)
    {
        ++m_figures.errors;
        if (!m_figures.firstError)
            m_figures.firstError = Error{ErrorKind::Io, message};
    }

    void issue(int channel, Clock::time_point due)
    {
        auto* call = new Call;
        call->channel = channel;
        call->due = due;
        m_make(m_sent++, &call->request);
        call->reader = m_stubs[size_t(channel)]->PrepareAsyncShouldRateLimit(
            &call->context, call->request, &m_queue);
        call->reader->StartCall();
        call->reader->Finish(&call->response, &call->status, call);
        ++m_inFlight;
    }

    // Counts one answer; returns its channel.
    int complete(void* tag, bool ok)
    {
        std::unique_ptr<Call> call(static_cast<Call*>(tag));
        --m_inFlight;
        m_lastAnswer = Clock::now();
        if (!ok || !call->status.ok()) {
            fail(QStringLiteral("ShouldRateLimit: %1")
                     .arg(QString::fromStdString(call->status.error_message())));
        } else {
            ++m_figures.hits;
            if (call->response.overall_code() == rls::RateLimitResponse::OVER_LIMIT)
                ++m_figures.denied;
            m_figures.latenciesMs.push_back(
                std::chrono::duration<double, std::milli>(m_lastAnswer - call->due).count());
        }
        return call->channel;
    }

    void closedLoop()
    {
        for (int c = 0; c < m_options.channels; ++c)
            for (int m = 0; m < m_options.inFlight && !stopping(Clock::now()); ++m)
                issue(c, Clock::now());
        void* tag = nullptr;
        bool ok = false;
        while (m_inFlight > 0 && m_queue.Next(&tag, &ok)) {
            const int channel = complete(tag, ok);
            const auto now = Clock::now();
            if (!stopping(now))
                issue(channel, now);
        }
    }

    void openLoop()
    {
        const std::chrono::duration<double> interval(1.0 / m_options.ratePerSecond);
        quint64 next = 0;
        auto dueAt = [&](quint64 k) {
            return m_start + std::chrono::duration_cast<Clock::duration>(interval * double(k));
        };
        for (;;) {
            auto now = Clock::now();
            while (!stopping(now) && dueAt(next) <= now) {
                if (m_inFlight < kOpenLoopCap)
                    issue(int(next % quint64(m_options.channels)), dueAt(next));
                else
                    fail(QStringLiteral("more than %1 requests outstanding").arg(kOpenLoopCap));
                ++next;
            }
            const bool done = stopping(now);
            if (done && m_inFlight == 0)
                return;
            const auto wake = done ? now + std::chrono::milliseconds(100) : dueAt(next);
            void* tag = nullptr;
            bool ok = false;
            const auto status = m_queue.AsyncNext(
                &tag, &ok,
                std::chrono::system_clock::now() +
                    std::chrono::duration_cast<std::chrono::system_clock::duration>(wake - now));
            if (status == grpc::CompletionQueue::GOT_EVENT)
                complete(tag, ok);
            else if (status == grpc::CompletionQueue::SHUTDOWN)
                return;
        }
    }

    const GrpcLoadOptions& m_options;
    const RequestMaker& m_make;
    grpc::CompletionQueue m_queue;
    std::vector<std::unique_ptr<rls::RateLimitService::Stub>> m_stubs;
    HitLoadFigures m_figures;
    Clock::time_point m_start, m_end, m_lastAnswer;
    quint64 m_sent = 0;
    int m_inFlight = 0;
};

} // namespace

HitLoadFigures runGrpcLoad(const GrpcLoadOptions& options, const RequestMaker& make)
{
    Runner runner(options, make);
    return runner.connect() ? runner.run() : runner.failure();
}

void fillRequest(rls::RateLimitRequest* request, const QByteArray& domain, const QByteArray& key,
                 const std::vector<QByteArray>& values)
{
    request->set_domain(domain.constData(), size_t(domain.size()));
    for (const QByteArray& value : values) {
        auto* entry = request->add_descriptors()->add_entries();
        entry->set_key(key.constData(), size_t(key.size()));
        entry->set_value(value.constData(), size_t(value.size()));
    }
}

} // namespace tollgate::bench
