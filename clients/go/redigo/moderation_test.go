package redigo_test

import (
	"context"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"tollgate.dev/tollgate"
)

func TestBanUnbanResetWithTheirAuditEntries(t *testing.T) {
	l := fresh(t, tollgate.Options{})
	ctx := context.Background()
	savePolicy(t, l, "comment", map[string]string{"windows": "60000:10"})
	hit(t, l, "comment", "a:b")
	ban, err := l.Ban(ctx, tollgate.Ban{User: "a:b", Action: "comment", Duration: time.Minute, Actor: "mod", Reason: "spam"})
	if err != nil || ban.Until.Sub(ban.Created) != time.Minute {
		t.Fatalf("ban %+v %v", ban, err)
	}
	if d := hit(t, l, "comment", "a:b"); d.Tier != tollgate.TierBanned || d.RetryAfter > time.Minute || d.RetryAfter < 59*time.Second {
		t.Fatalf("banned hit %+v", d)
	}
	if _, err := l.Ban(ctx, tollgate.Ban{User: "a:b", Actor: "mod"}); err == nil {
		t.Fatal("a ban without a reason was written")
	}
	if n, err := l.Unban(ctx, "a:b", "", "mod", "appeal"); err != nil || n != 1 {
		t.Fatalf("unban %d %v", n, err)
	}
	if n, err := l.Reset(ctx, "a:b", "comment", "mod", ""); err != nil || n != 1 {
		t.Fatalf("reset %d %v", n, err)
	}
	if d := hit(t, l, "comment", "a:b"); !d.Allowed || d.Count != 1 {
		t.Fatalf("after reset %+v", d)
	}
	events := map[string]bool{}
	entries, _ := redis.Values(server.Do("XRANGE", "tg:{a%3Ab}:audit", "-", "+"))
	for _, e := range entries {
		pair, _ := redis.Values(e, nil) // id, fields
		kv, _ := redis.StringMap(pair[1], nil)
		events[kv["event"]] = kv["actor"] == "mod"
	}
	for _, e := range []string{"ban", "unban", "reset"} {
		if !events[e] {
			t.Errorf("no %s entry by mod in the user's audit stream: %v", e, events)
		}
	}
	if n, _ := redis.Int(server.Do("XLEN", "tg:audit")); n < 3 {
		t.Errorf("the global audit stream has %d entries", n)
	}
}

func TestOverrideAndRefund(t *testing.T) {
	l := fresh(t, tollgate.Options{})
	ctx := context.Background()
	savePolicy(t, l, "ocr", map[string]string{"windows": "60000:2"})
	err := l.SetOverride(ctx, tollgate.Override{User: "vip", Action: "ocr", Windows: []tollgate.Window{{Limit: 5, Window: time.Hour}},
		Duration: time.Minute, Actor: "ops", Reason: "trial"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		if d := hit(t, l, "ocr", "vip"); !d.Allowed || d.Override != "limit" || d.Limit != 5 {
			t.Fatalf("hit %d under the override: %+v", i, d)
		}
	}
	r, err := l.Refund(ctx, "ocr", "vip", 2)
	if err != nil || !r.Changed || r.Count != 3 || r.Limit != 5 {
		t.Fatalf("refund in the override's window: %+v %v", r, err)
	}
	if ok, err := l.DeleteOverride(ctx, "vip", "ocr", "ops", "trial over"); !ok || err != nil {
		t.Fatalf("delete override %v %v", ok, err)
	}
	if d := hit(t, l, "ocr", "vip"); d.Override != "" || d.Limit != 2 {
		t.Fatalf("after the override: %+v", d)
	}
}
