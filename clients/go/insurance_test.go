package tollgate

import (
	"testing"
	"time"
)

func TestInsuranceLimiterCountsAScaledFixedWindow(t *testing.T) {
	in := NewInsuranceLimiter(0.5, 0)
	p := &Policy{Action: "like", Windows: []Window{w(10, 60_000), w(100, 3_600_000)}, Cost: 1}
	for i := 1; i <= 5; i++ {
		d := in.hit(p, "alice", PolicyCost, true)
		if !d.Allowed || d.Count != int64(i) || d.Limit != 5 {
			t.Fatalf("hit %d: %+v", i, d)
		}
	}
	d := in.hit(p, "alice", PolicyCost, true)
	if d.Allowed || d.Tier != TierDeny || d.RetryAfter <= 0 || d.RetryAfter > time.Minute {
		t.Fatalf("sixth hit: %+v", d)
	}
	if d := in.hit(p, "alice", 6, false); d.RetryAfter != Never {
		t.Fatalf("a cost above the limit never fits: %+v", d)
	}
	if d := in.hit(p, "bob", PolicyCost, false); !d.Allowed || d.Count != 0 {
		t.Fatalf("another user, weighed only: %+v", d)
	}
}

func TestInsuranceLimiterStaysBounded(t *testing.T) {
	in := NewInsuranceLimiter(1, 10)
	p := &Policy{Action: "like", Windows: []Window{w(10, 60_000)}, Cost: 1}
	for i := 0; i < 100; i++ {
		in.hit(p, string(rune('a'+i%26))+string(rune('a'+i/26)), PolicyCost, true)
	}
	if n := len(in.windows); n > 10 {
		t.Fatalf("%d windows kept", n)
	}
}
