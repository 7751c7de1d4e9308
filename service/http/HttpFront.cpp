#include "service/http/HttpFront.h"

#include "core/http/RateLimitHeaders.h"
#include "core/limits/RefusalCache.h"
#include "service/http/DecisionJson.h"
#include "service/metrics/ServiceMetrics.h"

#include <QFuture>
#include <QHttpServer>
#include <QHttpServerResponse>
#include <QJsonDocument>
#include <QPromise>
#include <chrono>

namespace tollgate::service {

namespace {

using Status_ = QHttpServerResponse::StatusCode;
using Clock = std::chrono::steady_clock;

QHttpServerResponse jsonResponse(const QJsonObject& object, Status_ status = Status_::Ok)
{
    return QHttpServerResponse("application/json",
                               QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n', status);
}

QHttpServerResponse errorResponse(const Error& error)
{
    const Status_ status = error.kind == ErrorKind::InvalidInput ? Status_::BadRequest
                           : error.kind == ErrorKind::NotFound   ? Status_::NotFound
                           : error.kind == ErrorKind::NoPerm     ? Status_::Forbidden
                                                                 : Status_::ServiceUnavailable;
    return jsonResponse({{QStringLiteral("error"), error.message},
                         {QStringLiteral("kind"), errorKindName(error.kind)}},
                        status);
}

void addHeaders(QHttpServerResponse& response, const Policy& policy, const HitResult& hit,
                bool denied)
{
    const RateLimitHeaders headers = rateLimitHeaders(policy, hit);
    if (!headers.policy.isEmpty())
        response.setHeader("RateLimit-Policy", headers.policy);
    if (!headers.rateLimit.isEmpty())
        response.setHeader("RateLimit", headers.rateLimit);
    if (denied && !headers.retryAfter.isEmpty())
        response.setHeader("Retry-After", headers.retryAfter);
}

double since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// A future fulfilled from any thread; QHttpServer writes it on its own thread.
struct Reply
{
    std::shared_ptr<QPromise<QHttpServerResponse>> promise =
        std::make_shared<QPromise<QHttpServerResponse>>();
    Reply() { promise->start(); }
    QFuture<QHttpServerResponse> future() const { return promise->future(); }
    void send(QHttpServerResponse&& response) const
    {
        promise->addResult(std::move(response));
        promise->finish();
    }
};

} // namespace

HttpFront::HttpFront(std::shared_ptr<const Decider> decider, std::shared_ptr<PolicyBook> policies,
                     std::shared_ptr<ServiceMetrics> metrics, Hooks hooks, QObject* parent)
    : QObject(parent), m_decider(std::move(decider)), m_policies(std::move(policies)),
      m_metrics(std::move(metrics)), m_hooks(std::move(hooks)),
      m_server(std::make_unique<QHttpServer>())
{
    addRoutes();
}

HttpFront::~HttpFront() = default;

Status HttpFront::listen(const QHostAddress& address, quint16 port)
{
    const quint16 bound = m_server->listen(address, port);
    if (bound == 0)
        return Error{ErrorKind::Io, QStringLiteral("cannot listen on %1:%2 (in use, or not "
                                                   "permitted)")
                                        .arg(address.toString())
                                        .arg(port)};
    m_port = bound;
    return Unit{};
}

void HttpFront::addRoutes()
{
    using Method = QHttpServerRequest::Method;
    m_server->route(QStringLiteral("/v1/decide"), Method::Post,
                    [this](const QHttpServerRequest& request) {
                        Reply reply;
                        const auto start = Clock::now();
                        auto parsed = decisionRequestFromJson(request.body());
                        if (!parsed) {
                            m_metrics->recordDecision({}, "error", "http", since(start), 0);
                            reply.send(errorResponse(parsed.error()));
                            return reply.future();
                        }
                        const QByteArray domain = parsed->domain;
                        m_decider->decide(*parsed, [reply, start, domain, metrics = m_metrics](
                                                       Result<Decision> decision) {
                            if (!decision) {
                                metrics->recordDecision(domain, "error", "http", since(start), 0);
                                reply.send(errorResponse(decision.error()));
                                return;
                            }
                            const bool over = decision->overall == Code::OverLimit;
                            QHttpServerResponse response = jsonResponse(decisionToJson(*decision));
                            if (decision->headline && decision->headlinePolicy)
                                addHeaders(response, *decision->headlinePolicy,
                                           *decision->headline, over);
                            metrics->recordDecision(domain, over ? "over_limit" : "ok", "http",
                                                    since(start), decision->redisCalls);
                            reply.send(std::move(response));
                        });
                        return reply.future();
                    });
    m_server->route(QStringLiteral("/v1/hit"), Method::Post, [this](const QHttpServerRequest& request) {
        Reply reply;
        const auto start = Clock::now();
        QJsonParseError error{};
        const QJsonObject body = QJsonDocument::fromJson(request.body(), &error).object();
        const QByteArray action = body.value(QStringLiteral("action")).toString().toUtf8();
        const QByteArray user = body.value(QStringLiteral("user")).toString().toUtf8();
        const QJsonValue costValue = body.value(QStringLiteral("cost"));
        const double cost = costValue.isUndefined() ? 0 : costValue.toDouble(-1);
        if (error.error != QJsonParseError::NoError || action.isEmpty() || user.isEmpty() ||
            cost < 0 || cost > double(Policy::kMaxLimit) || cost != double(qint64(cost))) {
            reply.send(errorResponse(Error{
                ErrorKind::InvalidInput,
                QStringLiteral("the body must be {\"action\": ..., \"user\": ..., \"cost\": 1..%1 "
                               "(optional)}")
                    .arg(Policy::kMaxLimit)}));
            return reply.future();
        }
        const PolicyBook::Snapshot policies = m_policies->current();
        const auto policy = policies->constFind(action);
        if (policy == policies->cend()) {
            reply.send(errorResponse(Error{ErrorKind::NotFound,
                                           QStringLiteral("no policy for action %1")
                                               .arg(QString::fromUtf8(action.left(200)))}));
            return reply.future();
        }
        m_decider->limiter().hit(
            *policy, user, qint64(cost), nullptr,
            [reply, start, policy = *policy, metrics = m_metrics](Result<HitResult> hit) {
                if (!hit) {
                    metrics->recordDecision("_hit", "error", "http", since(start), 0);
                    reply.send(errorResponse(hit.error()));
                    return;
                }
                QHttpServerResponse response = jsonResponse(
                    hitToJson(*hit), hit->allowed ? Status_::Ok : Status_::TooManyRequests);
                addHeaders(response, policy, *hit, !hit->allowed);
                metrics->recordDecision("_hit", hit->allowed ? "ok" : "over_limit", "http",
                                        since(start), hit->decidedBy == DecidedBy::Cache ? 0 : 1);
                reply.send(std::move(response));
            });
        return reply.future();
    });
    m_server->route(QStringLiteral("/healthz"), Method::Get, [] {
        return QHttpServerResponse("text/plain", "ok\n");
    });
    m_server->route(QStringLiteral("/readyz"), Method::Get, [this] {
        QString why;
        const bool ready = m_hooks.ready(&why);
        QString text = ready ? QStringLiteral("ready\n") : QStringLiteral("not ready: %1\n").arg(why);
        if (m_hooks.configState)
            text += m_hooks.configState() + QLatin1Char('\n');
        return QHttpServerResponse("text/plain", text.toUtf8(),
                                   ready ? Status_::Ok : Status_::ServiceUnavailable);
    });
    m_server->route(QStringLiteral("/metrics"), Method::Get, [this](const QHttpServerRequest& request) {
        Reply reply;
        const ExpositionFormat format = negotiateFormat(request.value("Accept"));
        QString why;
        const auto cache = m_decider->limiter().refusalCache();
        QByteArray own = m_metrics->render(format, cache ? cache->stats() : RefusalCache::Stats{},
                                           cache ? cache->maxBytes() : 0, m_hooks.ready(&why));
        auto send = [reply, format](QByteArray text) {
            if (format == ExpositionFormat::OpenMetrics && !text.endsWith("# EOF\n"))
                text += "# EOF\n";
            reply.send(QHttpServerResponse(contentType(format), std::move(text)));
        };
        if (!m_hooks.exporterMetrics) {
            send(own);
            return reply.future();
        }
        m_hooks.exporterMetrics(format, [own, send](QByteArray exporter) { send(own + exporter); });
        return reply.future();
    });
}

} // namespace tollgate::service
