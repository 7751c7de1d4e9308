package redigo_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"tollgate.dev/tollgate"
	tgredigo "tollgate.dev/tollgate/redigo"
)

func TestHitUntilDeniedThenPeek(t *testing.T) {
	l := fresh(t, tollgate.Options{})
	savePolicy(t, l, "comment", map[string]string{"windows": "30000:3", "message": "Slow down"})
	for i := int64(1); i <= 3; i++ {
		d := hit(t, l, "comment", "42")
		if !d.Allowed || d.Tier != tollgate.TierOK || d.Count != i || d.Remaining != 3-i || d.Source != tollgate.SourceRedis {
			t.Fatalf("hit %d: %+v", i, d)
		}
	}
	d := hit(t, l, "comment", "42")
	if d.Allowed || d.Tier != tollgate.TierDeny || d.Message != "Slow down" || d.RetryAfter <= 29*time.Second || d.RetryAfter > 30*time.Second {
		t.Fatalf("fourth hit: %+v", d)
	}
	h := d.Headers(nil)
	if h.Policy != `"comment-30s";q=3;w=30` || h.RateLimit != `"comment-30s";r=0;t=30` || h.RetryAfter != "30" {
		t.Fatalf("headers %+v", h)
	}
	p, err := l.Peek(context.Background(), "comment", "42", 1)
	if err != nil || p.Allowed || p.CountNow != 3 || p.ResetNow <= 0 {
		t.Fatalf("peek %+v %v", p, err)
	}
	if n, _ := redis.Int(server.Do("GET", "tg:{42}:comment:fw:30000")); n != 3 {
		t.Fatalf("the peek counted: %d", n)
	}
}

func TestShadowPolicyAllowsAndSaysWhatItWouldDo(t *testing.T) {
	l := fresh(t, tollgate.Options{})
	savePolicy(t, l, "upload", map[string]string{"windows": "60000:1", "ban_ms": "60000", "shadow": "1"})
	hit(t, l, "upload", "u")
	d := hit(t, l, "upload", "u")
	if !d.Allowed || !d.Shadow || !d.WouldBan || d.Tier != tollgate.TierDeny {
		t.Fatalf("shadow hit: %+v", d)
	}
	if n, _ := redis.Int(server.Do("EXISTS", "tg:{u}:upload:ban")); n != 0 {
		t.Fatal("a shadow policy banned")
	}
}

func TestMissingPolicyIsATypedError(t *testing.T) {
	l := fresh(t, tollgate.Options{})
	_, err := l.Hit(context.Background(), "nothing", "42", 1)
	var e *tollgate.Error
	if !errors.Is(err, tollgate.ErrNoPolicy) || !errors.As(err, &e) || e.Action != "nothing" {
		t.Fatalf("got %v", err)
	}
}

func TestInlinePolicyNeedsNothingInRedis(t *testing.T) {
	l := fresh(t, tollgate.Options{Prefix: "app", Policies: []tollgate.Policy{{Action: "ocr", Algorithm: tollgate.SlidingWindow,
		Windows: []tollgate.Window{{Limit: 2, Window: time.Minute}}}}})
	hit(t, l, "ocr", "7")
	hit(t, l, "ocr", "7")
	if d := hit(t, l, "ocr", "7"); d.Allowed {
		t.Fatalf("third hit: %+v", d)
	}
	if n, _ := redis.Int(server.Do("EXISTS", "app:{7}:ocr:sw:60000")); n != 1 {
		t.Fatal("no sliding-window state under the prefix")
	}
}

// countingClient counts the commands by name and can answer the contract query itself.
type countingClient struct {
	tollgate.Client
	evalsha, eval atomic.Int64
	contract      interface{} // answer to "EVALSHA <sha> 0 contract" instead of the server's
}

func (c *countingClient) Do(ctx context.Context, args ...interface{}) (interface{}, error) {
	switch args[0] {
	case "EVALSHA", "EVALSHA_RO":
		if c.contract != nil && len(args) == 4 && args[3] == "contract" {
			return c.contract, nil
		}
		c.evalsha.Add(1)
	case "EVAL", "EVAL_RO":
		c.eval.Add(1)
	}
	return c.Client.Do(ctx, args...)
}

func TestNoScriptFallsBackToEval(t *testing.T) {
	fresh(t, tollgate.Options{})
	client := &countingClient{Client: tgredigo.New(server.Pool())}
	l := limiterOn(t, client, tollgate.Options{})
	savePolicy(t, l, "like", map[string]string{"windows": "60000:10"})
	hit(t, l, "like", "a")
	if _, err := server.Do("SCRIPT", "FLUSH"); err != nil {
		t.Fatal(err)
	}
	if d := hit(t, l, "like", "a"); d.Count != 2 {
		t.Fatalf("after SCRIPT FLUSH: %+v", d)
	}
	if client.eval.Load() != 1 {
		t.Fatalf("%d EVALs after one flush", client.eval.Load())
	}
	hit(t, l, "like", "a") // EVAL cached the script again: EVALSHA finds it
	if client.eval.Load() != 1 {
		t.Fatal("EVAL again: the first did not cache the script")
	}
}

func TestContractMismatchIsRefused(t *testing.T) {
	fresh(t, tollgate.Options{})
	client := &countingClient{Client: tgredigo.New(server.Pool()), contract: int64(2)}
	l := limiterOn(t, client, tollgate.Options{})
	savePolicy(t, l, "like", map[string]string{"windows": "60000:10"})
	client.evalsha.Store(0)
	_, err := l.Hit(context.Background(), "like", "a", 1)
	if !errors.Is(err, tollgate.ErrContract) || !strings.Contains(err.Error(), "contract 3") {
		t.Fatalf("a server answering contract 2: %v", err)
	}
	if client.evalsha.Load() != 0 {
		t.Fatal("a hit was sent to a server of another contract")
	}
}

func TestFrozenRedisCostsTheDeadlineNeverAHang(t *testing.T) {
	l := fresh(t, tollgate.Options{})
	savePolicy(t, l, "like", map[string]string{"windows": "60000:2"})
	hit(t, l, "like", "a")
	if err := server.Freeze(); err != nil {
		t.Fatal(err)
	}
	defer server.Thaw()
	call := func(mode tollgate.FailureMode) (tollgate.Decision, error, time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		started := time.Now()
		d, err := l.WithFailureMode(mode).Hit(ctx, "like", "a", 1)
		return d, err, time.Since(started)
	}
	if _, err, took := call(tollgate.Report); !errors.Is(err, tollgate.ErrUnavailable) || took > time.Second {
		t.Fatalf("report: %v after %v", err, took)
	}
	if d, err, took := call(tollgate.Deny); err != nil || d.Allowed || d.Source != tollgate.SourceFailurePolicy || d.RedisErr == nil || took > time.Second {
		t.Fatalf("deny: %+v %v after %v", d, err, took)
	}
	// Insurance counts in the process, with the policy's limits (2 per minute).
	for i, want := range []bool{true, true, false} {
		if d, err, _ := call(tollgate.Insurance); err != nil || d.Allowed != want || d.FailureMode != tollgate.Insurance {
			t.Fatalf("insurance hit %d: %+v %v", i+1, d, err)
		}
	}
	server.Thaw()
	eventually(t, "Redis answers again", func() bool {
		d, err := l.Hit(context.Background(), "like", "b", 1)
		return err == nil && d.Source == tollgate.SourceRedis
	})
}

func TestPolicyChangeArrivesByEvent(t *testing.T) {
	l := fresh(t, tollgate.Options{PolicyTTL: time.Hour})
	admin := limiterOn(t, tgredigo.New(server.Pool()), tollgate.Options{NoEvents: true})
	savePolicy(t, admin, "like", map[string]string{"windows": "60000:1"})
	eventually(t, "the subscription", l.Subscribed)
	// Subscribed, the Limiter reads the policy once and keeps it until an event says otherwise.
	if d := hit(t, l, "like", "a"); !d.Allowed {
		t.Fatalf("first hit: %+v", d)
	}
	if d := hit(t, l, "like", "a"); d.Allowed {
		t.Fatalf("second hit at limit 1: %+v", d)
	}
	savePolicy(t, admin, "like", map[string]string{"windows": "60000:5"})
	eventually(t, "the new limit", func() bool { return hit(t, l, "like", "a").Limit == 5 })
}

// One Limiter from many goroutines: every hit counted once, the limit held exactly.
func TestConcurrentHitsHoldTheLimit(t *testing.T) {
	l := fresh(t, tollgate.Options{})
	savePolicy(t, l, "like", map[string]string{"algorithm": "sliding_log", "windows": "60000:100"})
	var allowed atomic.Int64
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				d, err := l.Hit(context.Background(), "like", "crowd", 1)
				if err != nil {
					done <- err
					return
				}
				if d.Allowed {
					allowed.Add(1)
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if allowed.Load() != 100 {
		t.Fatalf("%d of 400 hits allowed at a limit of 100", allowed.Load())
	}
}
