#include "core/http/RateLimitHeaders.h"

#include "core/policies/Duration.h"

namespace tollgate {

namespace {

// Whole seconds, rounded up: a client that waits `t` seconds never comes back too early.
qint64 ceilSeconds(qint64 ms)
{
    return ms <= 0 ? 0 : (ms + 999) / 1000;
}

QByteArray partitionParameter(const QByteArray& key)
{
    return key.isEmpty() ? QByteArray() : ";pk=:" + key.toBase64() + ':';
}

// The window hit.lua reported: the first with the reply's limit (the reply names no window).
const WindowLimit* bindingWindow(const Policy& policy, const HitResult& hit)
{
    for (const WindowLimit& window : policy.windows)
        if (window.limit == hit.limit)
            return &window;
    return policy.windows.empty() ? nullptr : &policy.windows.front();
}

} // namespace

QByteArray rateLimitPolicyName(const QByteArray& action, qint64 windowMs)
{
    // An sf-string holds printable ASCII only: other bytes (and '%') are percent-escaped, '"'
    // and '\\' backslash-escaped. One pass: this runs for every decision tollgated answers.
    static constexpr char kHex[] = "0123456789ABCDEF";
    const QByteArray window = formatDuration(windowMs).toLatin1();
    QByteArray quoted;
    quoted.reserve(action.size() + window.size() + 8);
    quoted += '"';
    for (const char c : action) {
        const auto byte = uchar(c);
        if (byte < 0x20 || byte >= 0x7f || c == '%') {
            quoted += '%';
            quoted += kHex[byte >> 4];
            quoted += kHex[byte & 0xf];
            continue;
        }
        if (c == '"' || c == '\\')
            quoted += '\\';
        quoted += c;
    }
    quoted += '-';
    quoted += window; // digits and unit letters
    quoted += '"';
    return quoted;
}

RateLimitHeaders rateLimitHeaders(const Policy& policy, const HitResult& hit,
                                  const QByteArray& partitionKey)
{
    RateLimitHeaders headers;
    const QByteArray pk = partitionParameter(partitionKey);
    for (const WindowLimit& window : policy.windows) {
        if (!headers.policy.isEmpty())
            headers.policy += ", ";
        // w is whole seconds: a window under a second is announced as one.
        headers.policy +=
            rateLimitPolicyName(policy.action, window.windowMs) +
            ";q=" + QByteArray::number(window.limit) +
            ";w=" + QByteArray::number(std::max<qint64>(1, ceilSeconds(window.windowMs))) + pk;
    }
    if (const WindowLimit* window = bindingWindow(policy, hit)) {
        // A ban refuses everything until it ends: nothing remains, whatever the window holds,
        // and the quota comes back when the ban (or the longer wait of a denial) is over.
        const qint64 remaining = hit.tier == Tier::Banned ? 0 : std::max<qint64>(0, hit.remaining);
        const qint64 resetMs =
            !hit.allowed && hit.retryAfterMs > hit.resetMs ? hit.retryAfterMs : hit.resetMs;
        headers.rateLimit = rateLimitPolicyName(policy.action, window->windowMs) +
                            ";r=" + QByteArray::number(remaining) +
                            ";t=" + QByteArray::number(ceilSeconds(resetMs)) + pk;
    }
    if (!hit.allowed && hit.retryAfterMs >= 0)
        headers.retryAfter = QByteArray::number(ceilSeconds(hit.retryAfterMs));
    return headers;
}

QByteArray RateLimitHeaders::toHttp() const
{
    QByteArray out;
    const auto add = [&out](const char* name, const QByteArray& value) {
        if (!value.isEmpty())
            out += (out.isEmpty() ? "" : "\r\n") + QByteArray(name) + ": " + value;
    };
    add("RateLimit-Policy", policy);
    add("RateLimit", rateLimit);
    add("Retry-After", retryAfter);
    return out;
}

} // namespace tollgate
