#pragma once

#include "tollgate/HitResult.h"
#include "tollgate/Policy.h"

namespace tollgate {

/// The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers, -08 and later) for a
/// policy and a hit's result, as Structured Field lists (RFC 9651):
///   RateLimit-Policy: "like-1m";q=10;w=60, "like-1h";q=100;w=3600
///   RateLimit: "like-1m";r=0;t=42
///   Retry-After: 42                      (a denial with an end; none for a permanent ban)
/// One policy item per window, named "<action>-<window>" (lua/README.md builds the same names
/// from hit.lua's reply); the RateLimit item is the window hit.lua reported as binding.
struct RateLimitHeaders
{
    QByteArray policy;     // RateLimit-Policy
    QByteArray rateLimit;  // RateLimit
    QByteArray retryAfter; // Retry-After, empty when none is due

    /// "Name: value" lines, CRLF-separated, the empty ones left out.
    QByteArray toHttp() const;
};

/// `partitionKey` (optional) becomes `pk`, a byte sequence: it tells a client which quota
/// partition it is in; it should not be a secret or a personal id in clear.
RateLimitHeaders rateLimitHeaders(const Policy& policy, const HitResult& hit,
                                  const QByteArray& partitionKey = {});

/// "<action>-<window>" as an sf-string: "like-1m", "like-1h30m", "like-500ms". Bytes outside
/// printable ASCII, and '%', are percent-escaped; '"' and '\' are backslash-escaped.
QByteArray rateLimitPolicyName(const QByteArray& action, qint64 windowMs);

} // namespace tollgate
