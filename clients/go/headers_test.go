package tollgate

import (
	"net/http"
	"testing"
	"time"
)

func policyOf(action string, windows ...Window) *Policy {
	return &Policy{Action: action, Windows: windows}
}

func w(limit int64, ms int64) Window {
	return Window{Limit: limit, Window: time.Duration(ms) * time.Millisecond}
}

func decision(allowed bool, limit, remaining, resetMs, retryMs int64, tier Tier) *Decision {
	return &Decision{Allowed: allowed, Tier: tier, Limit: limit, Remaining: remaining,
		Reset: msDuration(resetMs), RetryAfter: msDuration(retryMs)}
}

// The same vectors as the C++ library's tst_RateLimitHeaders: the fields must be byte for byte
// what rateLimitHeaders() writes.
func TestHeadersAsTheCppLibraryWritesThem(t *testing.T) {
	cases := []struct {
		name                          string
		policy                        *Policy
		decision                      *Decision
		pk                            string
		policyField, rateLimit, retry string
	}{
		{"one window", policyOf("default", w(100, 10_000)), decision(true, 100, 50, 30_000, 0, TierOK), "",
			`"default-10s";q=100;w=10`, `"default-10s";r=50;t=30`, ""},
		{"several windows, the binding one", policyOf("api", w(100, 60_000), w(1000, 86_400_000)),
			decision(true, 1000, 3, 3_600_000, 0, TierOK), "",
			`"api-1m";q=100;w=60, "api-1d";q=1000;w=86400`, `"api-1d";r=3;t=3600`, ""},
		{"denial rounds up", policyOf("like", w(10, 60_000)), decision(false, 10, 0, 42_300, 42_300, TierDeny), "",
			`"like-1m";q=10;w=60`, `"like-1m";r=0;t=43`, "43"},
		{"banned: nothing remains", policyOf("like", w(10, 60_000)), decision(false, 10, 7, 5_000, 3_600_000, TierBanned), "",
			`"like-1m";q=10;w=60`, `"like-1m";r=0;t=3600`, "3600"},
		{"permanent ban: no Retry-After", policyOf("like", w(10, 60_000)), decision(false, 10, 0, 0, -1, TierBanned), "",
			`"like-1m";q=10;w=60`, `"like-1m";r=0;t=0`, ""},
		{"partition key", policyOf("api", w(100, 60_000)), decision(true, 100, 99, 60_000, 0, TierOK), "project123",
			`"api-1m";q=100;w=60;pk=:cHJvamVjdDEyMw==:`, `"api-1m";r=99;t=60;pk=:cHJvamVjdDEyMw==:`, ""},
		{"sub-second window is announced as one", policyOf("like", w(5, 500)), decision(true, 5, 4, 500, 0, TierOK), "",
			`"like-500ms";q=5;w=1`, `"like-500ms";r=4;t=1`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var pk []byte
			if c.pk != "" {
				pk = []byte(c.pk)
			}
			h := NewRateLimitHeaders(c.policy, c.decision, pk)
			if h.Policy != c.policyField || h.RateLimit != c.rateLimit || h.RetryAfter != c.retry {
				t.Fatalf("got %q %q %q, want %q %q %q", h.Policy, h.RateLimit, h.RetryAfter, c.policyField, c.rateLimit, c.retry)
			}
		})
	}
}

func TestPolicyNamesAreStructuredStrings(t *testing.T) {
	for _, c := range []struct {
		action string
		ms     int64
		want   string
	}{
		{"like", 60_000, `"like-1m"`},
		{"like", 5_400_000, `"like-1h30m"`},
		{"like", 500, `"like-500ms"`},
		{"a\"b\\c", 1000, `"a\"b\\c-1s"`},
		{"caf\xc3\xa9", 1000, `"caf%C3%A9-1s"`},
		{"50%", 604_800_000, `"50%25-1w"`},
	} {
		if got := rateLimitPolicyName(c.action, c.ms); got != c.want {
			t.Errorf("rateLimitPolicyName(%q, %d) = %s, want %s", c.action, c.ms, got, c.want)
		}
	}
}

func TestHeadersSetLeavesOutEmptyFields(t *testing.T) {
	header := http.Header{}
	RateLimitHeaders{Policy: `"like-1m";q=10;w=60`, RateLimit: `"like-1m";r=9;t=60`}.Set(header)
	if header.Get("RateLimit-Policy") == "" || header.Get("RateLimit") == "" || header.Get("Retry-After") != "" {
		t.Fatalf("unexpected header %v", header)
	}
}
