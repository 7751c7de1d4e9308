'use strict';
// The RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) of a decision, exactly
// as the C++ rateLimitHeaders() (core/http/RateLimitHeaders.cpp) and tollgated write them.
const { formatDuration } = require('./policy');

const HEX = '0123456789ABCDEF';

function ceilSeconds(ms) {
  return ms <= 0 ? 0 : Math.floor((ms + 999) / 1000);
}

/** "<action>-<window>" as an sf-string: bytes outside printable ASCII and % percent-escaped, " and \ backslash-escaped. */
function policyName(action, windowMs) {
  let quoted = '"';
  for (const byte of Buffer.isBuffer(action) ? action : Buffer.from(action)) {
    if (byte < 0x20 || byte >= 0x7f || byte === 0x25) {
      quoted += '%' + HEX[byte >> 4] + HEX[byte & 15];
      continue;
    }
    if (byte === 0x22 || byte === 0x5c) quoted += '\\';
    quoted += String.fromCharCode(byte);
  }
  return `${quoted}-${formatDuration(windowMs)}"`;
}

/**
 * { 'RateLimit-Policy', 'RateLimit', 'Retry-After'? } for `policy` and `decision`;
 * `partitionKey` (optional, bytes or a string) becomes the `pk` parameter of every item.
 */
function rateLimitHeaders(policy, decision, partitionKey) {
  const pk = partitionKey && partitionKey.length
    ? `;pk=:${Buffer.from(partitionKey).toString('base64')}:` : '';
  const headers = {};
  headers['RateLimit-Policy'] = policy.windows
    .map((w) => `${policyName(policy.action, w.windowMs)};q=${w.limit};w=${Math.max(1, ceilSeconds(w.windowMs))}${pk}`)
    .join(', ');
  // The window hit.lua reported: the first with the reply's limit (the reply names no window).
  const window = policy.windows.find((w) => w.limit === decision.limit) || policy.windows[0];
  if (window) {
    // A ban refuses everything until it ends: nothing remains, and the quota comes back when
    // the ban (or the longer wait of a denial) is over.
    const remaining = decision.tier === 'banned' ? 0 : Math.max(0, decision.remaining);
    const resetMs = !decision.allowed && decision.retryAfterMs > decision.resetMs ? decision.retryAfterMs : decision.resetMs;
    headers.RateLimit = `${policyName(policy.action, window.windowMs)};r=${remaining};t=${ceilSeconds(resetMs)}${pk}`;
  }
  if (!decision.allowed && decision.retryAfterMs >= 0) headers['Retry-After'] = String(ceilSeconds(decision.retryAfterMs));
  return headers;
}

module.exports = { rateLimitHeaders, policyName };
