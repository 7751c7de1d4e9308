#include "core/metrics/MetricsExporter.h"

#include "core/metrics/Exposition.h"

namespace tollgate {

namespace {
const QByteArray kText = QByteArrayLiteral("text/plain; charset=utf-8");
}

MetricsExporter::MetricsExporter(Client* client, KeySchema schema, ExporterOptions options,
                                 QObject* parent)
    : QObject(parent), m_client(client), m_options(options),
      m_http(new HttpServer([this](const HttpRequest& request,
                                   HttpResponder responder) { serve(request, responder); },
                            this)),
      m_collector(new ScrapeCollector(client, schema, this)),
      m_census(new KeyCensus(client, std::move(schema), options.census, this))
{
    // Every kind from the start at 0: a counter that appears only with its first error hides
    // that error from rate() and increase().
    for (int kind = 0; kind <= static_cast<int>(ErrorKind::NotFound); ++kind)
        m_errors[errorKindName(static_cast<ErrorKind>(kind))] = 0;
    for (const char* kind : {"corrupt_stats", "invalid_policy", "client_gone"})
        m_errors[QString::fromLatin1(kind)] = 0;
    connect(m_census, &KeyCensus::passFailed, this, [this](const Error& error) {
        count(errorKindName(error.kind), QStringLiteral("background scan: ") + error.message);
    });
}

Status MetricsExporter::start()
{
    const Status listening = m_http->listen(m_options.address, m_options.port);
    if (listening)
        m_census->start();
    return listening;
}

void MetricsExporter::count(const QString& kind, const QString& message)
{
    ++m_errors[kind];
    Q_EMIT problem(message);
}

void MetricsExporter::serve(const HttpRequest& request, const HttpResponder& responder)
{
    if (request.method != "GET") {
        responder.send(405, kText, "only GET\n");
        return;
    }
    if (request.path == "/metrics")
        serveMetrics(request, responder);
    else if (request.path == "/-/healthy")
        responder.send(200, kText, "Tollgate exporter is Healthy.\n");
    else if (request.path == "/-/ready")
        serveReady(responder);
    else if (request.path == "/")
        responder.send(200, "text/html; charset=utf-8",
                       "<html><body><h1>Tollgate exporter</h1>"
                       "<p><a href=\"/metrics\">Metrics</a></p></body></html>\n");
    else
        responder.send(404, kText, "not found: try /metrics, /-/healthy or /-/ready\n");
}

void MetricsExporter::serveMetrics(const HttpRequest& request, const HttpResponder& responder)
{
    const ExpositionFormat format = negotiateFormat(request.accept);
    m_collector->collect(
        [this, format, responder](MetricsSnapshot snapshot, std::vector<ScrapeProblem> problems) {
            for (const ScrapeProblem& p : problems)
                count(p.kind, QStringLiteral("scrape: ") + p.message);
            snapshot.census = m_census->last();
            snapshot.censusPasses = m_census->passes();
            snapshot.errors = m_errors;
            if (responder.clientGone()) {
                count(QStringLiteral("client_gone"),
                      QStringLiteral("scrape: the client hung up before the answer"));
                return;
            }
            responder.send(200, contentType(format), renderMetrics(snapshot, format));
        });
}

void MetricsExporter::serveReady(const HttpResponder& responder)
{
    m_client->execute({QByteArrayLiteral("TIME")}, this, [responder](Result<Reply> time) {
        if (time)
            responder.send(200, kText, "Tollgate exporter is Ready.\n");
        else
            responder.send(503, kText,
                           "Redis does not answer: " + time.error().message.toUtf8() + '\n');
    });
}

} // namespace tollgate
