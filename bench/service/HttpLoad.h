#pragma once

#include "core/limiter/HitLoad.h"

#include <QByteArray>
#include <chrono>
#include <functional>
#include <optional>

// bench_service's HTTP load generator: keep-alive HTTP/1.1 connections on raw sockets and one
// epoll set, each connection with one request outstanding (HTTP/1.1 answers in order, and
// clients rarely pipeline) or a few sent at once, all on the calling thread.
namespace tollgate::bench {

struct HttpLoadOptions
{
    quint16 port = 0; // on 127.0.0.1
    int connections = 128;
    std::chrono::milliseconds duration{5000};
    QByteArray path = "/v1/decide";
    int pipeline = 1; // requests written at once on a connection; the next ones when all are answered
};

/// One HTTP/1.1 response with a Content-Length (what QHttpServer sends).
struct HttpResponse
{
    int status = 0;
    bool closes = false; // "Connection: close"
    QByteArray body;
};

/// Takes the response at the front of `in` off it; nullopt while it has not all come.
std::optional<HttpResponse> takeHttpResponse(QByteArray& in);

/// The JSON body of request number `sequence`.
using BodyMaker = std::function<QByteArray(quint64 sequence)>;

/// HitLoadFigures: hits = answers with status 200, errors = any other status or a broken
/// connection (reopened), latencies in ms (sorted), cpuSeconds = this process over the run.
HitLoadFigures runHttpLoad(const HttpLoadOptions& options, const BodyMaker& body);

} // namespace tollgate::bench
