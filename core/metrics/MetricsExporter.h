#pragma once

#include "core/http/HttpServer.h"
#include "core/metrics/KeyCensus.h"
#include "core/metrics/ScrapeCollector.h"

#include <QHostAddress>
#include <QObject>
#include <map>

namespace tollgate {

struct ExporterOptions
{
    QHostAddress address = QHostAddress::LocalHost; // loopback unless told otherwise
    quint16 port = 9464;                            // 0: any free port
    KeyCensusOptions census;
};

/// `tollgatectl exporter`: serves
///   GET /metrics     the exposition (OpenMetrics 1.0 when the Accept header asks for it,
///                    else the Prometheus text format 0.0.4), read from Redis per scrape
///   GET /-/healthy   200 while the process serves
///   GET /-/ready     200 while Redis answers TIME, else 503 with the error
/// and runs the background KeyCensus. Nothing a client sends or Redis answers stops it: errors
/// are counted (tollgate_exporter_errors_total) and reported through problem().
class MetricsExporter : public QObject
{
    Q_OBJECT
public:
    MetricsExporter(Client* client, KeySchema schema, ExporterOptions options,
                    QObject* parent = nullptr);

    /// Binds and starts the census; an Io error naming the address when it cannot bind.
    Status start();
    quint16 port() const { return m_http->port(); }

Q_SIGNALS:
    /// One line for the log (stderr): what went wrong, with the key or address involved.
    void problem(const QString& message);

private:
    void serve(const HttpRequest& request, const HttpResponder& responder);
    void serveMetrics(const HttpRequest& request, const HttpResponder& responder);
    void serveReady(const HttpResponder& responder);
    void count(const QString& kind, const QString& message);

    Client* m_client;
    ExporterOptions m_options;
    HttpServer* m_http;
    ScrapeCollector* m_collector;
    KeyCensus* m_census;
    std::map<QString, qint64> m_errors;
};

} // namespace tollgate
