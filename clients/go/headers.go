package tollgate

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimitHeaders are the IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers)
// for a decision, exactly as the C++ rateLimitHeaders() and tollgated write them:
//
//	RateLimit-Policy: "comment-30s";q=10;w=30
//	RateLimit: "comment-30s";r=0;t=28
//	Retry-After: 28
type RateLimitHeaders struct {
	Policy     string // RateLimit-Policy
	RateLimit  string // RateLimit
	RetryAfter string // Retry-After; "" when none is due (allowed, or a permanent ban)
}

// Headers builds the fields from the decision and the policy it was made by. partitionKey
// (optional) becomes each item's pk parameter; it should be no secret and no personal id.
func (d *Decision) Headers(partitionKey []byte) RateLimitHeaders {
	if d.policy == nil {
		return RateLimitHeaders{}
	}
	return NewRateLimitHeaders(d.policy, d, partitionKey)
}

// NewRateLimitHeaders builds the fields for a decision made by the policy p (one
// RateLimit-Policy item per window, the RateLimit item of the binding window).
func NewRateLimitHeaders(p *Policy, d *Decision, partitionKey []byte) RateLimitHeaders {
	var h RateLimitHeaders
	if len(p.Windows) == 0 {
		return h
	}
	pk := ""
	if len(partitionKey) > 0 {
		pk = ";pk=:" + base64.StdEncoding.EncodeToString(partitionKey) + ":"
	}
	var b strings.Builder
	for i, w := range p.Windows {
		if i > 0 {
			b.WriteString(", ")
		}
		ms := w.Window.Milliseconds()
		seconds := ceilSeconds(ms)
		if seconds < 1 {
			seconds = 1 // a window under a second is announced as one
		}
		b.WriteString(rateLimitPolicyName(p.Action, ms) + ";q=" + strconv.FormatInt(w.Limit, 10) +
			";w=" + strconv.FormatInt(seconds, 10) + pk)
	}
	h.Policy = b.String()
	// The binding window: the first whose limit is the decision's (the reply names none).
	binding := p.Windows[0]
	for _, w := range p.Windows {
		if w.Limit == d.Limit {
			binding = w
			break
		}
	}
	// A ban refuses everything until it ends: nothing remains, and the quota comes back when
	// the ban (or the longer wait of a denial) is over.
	remaining := d.Remaining
	if d.Tier == TierBanned || remaining < 0 {
		remaining = 0
	}
	resetMs, retryMs := durationMs(d.Reset), durationMs(d.RetryAfter)
	if !d.Allowed && retryMs > resetMs {
		resetMs = retryMs
	}
	h.RateLimit = rateLimitPolicyName(p.Action, binding.Window.Milliseconds()) + ";r=" +
		strconv.FormatInt(remaining, 10) + ";t=" + strconv.FormatInt(ceilSeconds(resetMs), 10) + pk
	if !d.Allowed && retryMs >= 0 {
		h.RetryAfter = strconv.FormatInt(ceilSeconds(retryMs), 10)
	}
	return h
}

// Set writes the fields into an HTTP header, leaving out the empty ones.
func (h RateLimitHeaders) Set(header http.Header) {
	if h.Policy != "" {
		header.Set("RateLimit-Policy", h.Policy)
	}
	if h.RateLimit != "" {
		header.Set("RateLimit", h.RateLimit)
	}
	if h.RetryAfter != "" {
		header.Set("Retry-After", h.RetryAfter)
	}
}

// durationMs is a duration of hit.lua's reply in ms again, -1 for Never.
func durationMs(d time.Duration) int64 {
	if d == Never {
		return -1
	}
	return d.Milliseconds()
}

// ceilSeconds: whole seconds rounded up, so a client that waits t seconds is never early.
func ceilSeconds(ms int64) int64 {
	if ms <= 0 {
		return 0
	}
	return (ms + 999) / 1000
}

// rateLimitPolicyName is "<action>-<window>" as a Structured Field string: bytes outside
// printable ASCII, and '%', percent-escaped; '"' and '\' backslash-escaped.
func rateLimitPolicyName(action string, windowMs int64) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(action) + 12)
	b.WriteByte('"')
	for i := 0; i < len(action); i++ {
		c := action[i]
		if c < 0x20 || c >= 0x7f || c == '%' {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xF])
			continue
		}
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('-')
	b.WriteString(formatDuration(windowMs))
	b.WriteByte('"')
	return b.String()
}
