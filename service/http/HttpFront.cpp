#include "service/http/HttpFront.h"

#include "core/http/RateLimitHeaders.h"
#include "service/http/DecisionJson.h"
#include "service/metrics/ServiceMetrics.h"
#include "tollgate/RefusalCache.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>
#include <chrono>

namespace tollgate::service {

namespace {

using Clock = std::chrono::steady_clock;
const QByteArray kJson = "application/json";
const QByteArray kText = "text/plain; charset=utf-8";

QByteArray jsonText(const QJsonObject& object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

int statusOf(const Error& error)
{
    switch (error.kind) {
    case ErrorKind::InvalidInput:
        return 400;
    case ErrorKind::NotFound:
        return 404;
    case ErrorKind::NoPerm:
        return 403;
    default:
        return 503;
    }
}

void sendError(const HttpResponder& responder, const Error& error)
{
    responder.send(statusOf(error), kJson,
                   jsonText({{QStringLiteral("error"), error.message},
                             {QStringLiteral("kind"), errorKindName(error.kind)}}));
}

HttpHeaders rateLimitFields(const Policy& policy, const HitResult& hit, bool denied)
{
    const RateLimitHeaders fields = rateLimitHeaders(policy, hit);
    HttpHeaders headers;
    if (!fields.policy.isEmpty())
        headers.append({"RateLimit-Policy", fields.policy});
    if (!fields.rateLimit.isEmpty())
        headers.append({"RateLimit", fields.rateLimit});
    if (denied && !fields.retryAfter.isEmpty())
        headers.append({"Retry-After", fields.retryAfter});
    return headers;
}

double since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

HttpFront::HttpFront(std::shared_ptr<const Decider> decider, std::shared_ptr<PolicyBook> policies,
                     std::shared_ptr<ServiceMetrics> metrics, Hooks hooks, int maxConnections,
                     int threads, QObject* parent)
    : QObject(parent), m_decider(std::move(decider)), m_policies(std::move(policies)),
      m_metrics(std::move(metrics)), m_hooks(std::move(hooks))
{
    HttpServerOptions options;
    options.keepAlive = true;
    options.maxBody = kMaxBody;
    options.idleTimeoutMs = kIdleTimeoutMs;
    options.requestTimeoutMs = kRequestTimeoutMs;
    options.maxConnections = maxConnections;
    options.threads = threads;
    m_server = new HttpServer(
        [this](const HttpRequest& request, HttpResponder responder) { serve(request, responder); },
        options, this);
}

HttpFront::~HttpFront()
{
    delete m_server; // its threads stop first: none calls serve() on what is being destroyed
}

Status HttpFront::listen(const QHostAddress& address, quint16 port)
{
    return m_server->listen(address, port);
}

void HttpFront::serve(const HttpRequest& request, const HttpResponder& responder)
{
    const QByteArray& path = request.path;
    const bool post = request.method == "POST";
    if (path == "/v1/decide" && post)
        decide(request, responder); // on the connection's thread: decisions share nothing
    else if (path == "/v1/hit" && post)
        hit(request, responder);
    else if (QThread::currentThread() != thread()) // the daemon's state is read on its thread
        QMetaObject::invokeMethod(
            this, [this, request, responder] { serveOthers(request, responder); },
            Qt::QueuedConnection);
    else
        serveOthers(request, responder);
}

void HttpFront::serveOthers(const HttpRequest& request, const HttpResponder& responder)
{
    const QByteArray& path = request.path;
    const bool get = request.method == "GET";
    if (path == "/metrics" && get)
        metrics(request, responder);
    else if (path == "/healthz" && get)
        responder.send(200, kText, "ok\n");
    else if (path == "/readyz" && get) {
        QString why;
        const bool ready = m_hooks.ready(&why);
        QString text = ready ? QStringLiteral("ready\n") : QStringLiteral("not ready: %1\n").arg(why);
        if (m_hooks.configState)
            text += m_hooks.configState() + QLatin1Char('\n');
        responder.send(ready ? 200 : 503, kText, text.toUtf8());
    } else if (path == "/v1/decide" || path == "/v1/hit" || path == "/metrics" ||
               path == "/healthz" || path == "/readyz")
        responder.send(405, kText, "method not allowed\n");
    else
        responder.send(404, kText,
                       "not found: POST /v1/decide, POST /v1/hit, GET /healthz, /readyz, /metrics\n");
}

void HttpFront::decide(const HttpRequest& request, const HttpResponder& responder)
{
    const auto start = Clock::now();
    auto parsed = decisionRequestFromJson(request.body);
    if (!parsed) {
        m_metrics->recordDecision({}, "error", "http", since(start), 0);
        sendError(responder, parsed.error());
        return;
    }
    const QByteArray domain = parsed->domain;
    // Answered on the thread of the last Redis reply; the responder writes it on the
    // connection's.
    m_decider->decide(*parsed, [responder, start, domain,
                                metrics = m_metrics](Result<Decision> decision) {
        if (!decision) {
            metrics->recordDecision(domain, "error", "http", since(start), 0);
            sendError(responder, decision.error());
            return;
        }
        const bool over = decision->overall == Code::OverLimit;
        metrics->recordDecision(domain, over ? "over_limit" : "ok", "http", since(start),
                                decision->redisCalls);
        HttpHeaders headers;
        if (decision->headline && decision->headlinePolicy)
            headers = rateLimitFields(*decision->headlinePolicy, *decision->headline, over);
        responder.send(200, kJson, decisionJson(*decision), headers);
    });
}

void HttpFront::hit(const HttpRequest& request, const HttpResponder& responder)
{
    const auto start = Clock::now();
    QJsonParseError error{};
    const QJsonObject body = jsonFromBody(request.body, &error).object();
    const QByteArray action = body.value(QStringLiteral("action")).toString().toUtf8();
    const QByteArray user = body.value(QStringLiteral("user")).toString().toUtf8();
    const QJsonValue costValue = body.value(QStringLiteral("cost"));
    // Absent: the policy's cost (0 for the Limiter); given, 1 or more, as every client checks it.
    const double cost = costValue.isUndefined() ? 0 : costValue.toDouble(-1);
    if (error.error != QJsonParseError::NoError || action.isEmpty() || user.isEmpty() ||
        (!costValue.isUndefined() && cost < 1) ||
        cost > double(Policy::kMaxLimit) || cost != double(qint64(cost))) {
        sendError(responder, Error{ErrorKind::InvalidInput,
                                   QStringLiteral("the body must be {\"action\": ..., \"user\": ..., "
                                                  "\"cost\": 1..%1 (optional)}")
                                       .arg(Policy::kMaxLimit)});
        return;
    }
    const PolicyBook::Snapshot policies = m_policies->current();
    const auto policy = policies->constFind(action);
    if (policy == policies->cend()) {
        sendError(responder, Error{ErrorKind::NotFound, QStringLiteral("no policy for action %1")
                                                            .arg(QString::fromUtf8(action.left(200)))});
        return;
    }
    m_decider->limiter().hit(
        *policy, user, qint64(cost), nullptr,
        [responder, start, policy = *policy, metrics = m_metrics](Result<HitResult> hit) {
            const char* code = !hit ? "error" : hit->allowed ? "ok" : "over_limit";
            metrics->recordDecision("_hit", code, "http", since(start),
                                    hit && hit->decidedBy != DecidedBy::Cache ? 1 : 0);
            if (!hit) {
                sendError(responder, hit.error());
                return;
            }
            responder.send(hit->allowed ? 200 : 429, kJson, hitJson(*hit),
                           rateLimitFields(policy, *hit, !hit->allowed));
        });
}

void HttpFront::metrics(const HttpRequest& request, const HttpResponder& responder)
{
    const ExpositionFormat format = negotiateFormat(request.accept);
    QString why;
    const auto& cache = m_decider->limiter().refusalCache();
    const QByteArray own = m_metrics->render(format, cache ? cache->stats() : RefusalCache::Stats{},
                                             cache ? cache->maxBytes() : 0, m_hooks.ready(&why));
    auto send = [responder, format](QByteArray text) {
        if (format == ExpositionFormat::OpenMetrics && !text.endsWith("# EOF\n"))
            text += "# EOF\n";
        responder.send(200, contentType(format), text);
    };
    if (!m_hooks.exporterMetrics) {
        send(own);
        return;
    }
    // The exporter's collector answers on this thread.
    m_hooks.exporterMetrics(format, [own, send](const QByteArray& exporter) { send(own + exporter); });
}

} // namespace tollgate::service
