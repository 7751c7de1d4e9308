#pragma once

// The floor under tollgated's gRPC figures: a server of the same shape (Envoy's
// RateLimitService on the asynchronous API, the request read as bytes, one completion queue per
// thread, as many threads as tollgated has by default) that answers every call OK without deciding anything. What it
// costs is gRPC's own part of a decision; bench_service runs it as a child of itself
// (`bench_service --serve-floor`), under the load tollgated gets.
namespace tollgate::bench {

/// Serves until SIGTERM or SIGINT; prints the lines TollgatedProcess waits for. Returns the exit
/// code.
int serveGrpcFloor();

} // namespace tollgate::bench
