package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tollgate.dev/tollgate"
	tgredigo "tollgate.dev/tollgate/redigo"
	"tollgate.dev/tollgate/redigo/redistest"
)

// Outcome of one case: Status "PASS", "FAIL" or "SKIP", and the line to print.
type Outcome struct {
	Status string
	Line   string
}

// Run runs one case against server (FLUSHALL first: the runner's own private server only).
func Run(server *redistest.Server, c *Case) Outcome {
	if why, ok := c.Skip[RunnerName]; ok {
		return Outcome{"SKIP", fmt.Sprintf("SKIP %s: %s", c.File, why)}
	}
	if c.Cluster {
		return Outcome{"SKIP", fmt.Sprintf("SKIP %s: needs a Redis Cluster, and redigo has no cluster client", c.File)}
	}
	if err := run(server, c); err != nil {
		return Outcome{"FAIL", fmt.Sprintf("FAIL %s: %v", c.File, err)}
	}
	return Outcome{"PASS", "PASS " + c.File}
}

func run(server *redistest.Server, c *Case) error {
	if _, err := server.Do("FLUSHALL"); err != nil {
		return fmt.Errorf("FLUSHALL: %w", err)
	}
	pool := server.Pool()
	defer pool.Close()
	limiter, err := tollgate.NewLimiter(tgredigo.New(pool), tollgate.Options{Prefix: c.Prefix})
	if err != nil {
		return fmt.Errorf("NewLimiter: %w", err)
	}
	defer limiter.Close()
	x := &executor{server: server, limiter: limiter, prefix: c.Prefix}
	for action, fields := range c.Policies {
		if _, err := limiter.SavePolicy(context.Background(), action, fields, "conformance", ""); err != nil {
			return fmt.Errorf("policy %s: %w", action, err)
		}
	}
	for i, step := range c.Steps {
		for n := 0; n < step.Repeat; n++ {
			if err := x.step(step); err != nil {
				if step.Repeat > 1 {
					return fmt.Errorf("step %d (repetition %d): %v", i+1, n+1, err)
				}
				return fmt.Errorf("step %d: %v", i+1, err)
			}
		}
	}
	return nil
}

type executor struct {
	server  *redistest.Server
	limiter *tollgate.Limiter
	prefix  string
}

// step runs one step and compares what it answered with its expectations.
func (x *executor) step(s Step) error {
	started := time.Now()
	fields, err := x.do(s)
	var setup *setupError
	if errors.As(err, &setup) {
		return err
	}
	got := map[string]interface{}{}
	for k, v := range fields {
		got[k] = v
	}
	got["elapsed_ms"] = time.Since(started).Milliseconds()
	if err != nil {
		got["error"] = errorKind(err)
	}
	if _, wantsTTL := s.Expect["keys_without_ttl"]; wantsTTL {
		n, terr := keysWithoutTTL(x.server, x.prefix)
		if terr != nil {
			return terr
		}
		got["keys_without_ttl"] = n
	}
	return compare(s.Expect, got, err)
}

// setupError: the step itself could not be run as written (a bad case, a raw command that
// failed), as opposed to an answer to compare.
type setupError struct{ err error }

func (e *setupError) Error() string { return e.err.Error() }

func text(p *string) string {
	if p == nil {
		return "conformance"
	}
	return *p
}

func (x *executor) do(s Step) (map[string]interface{}, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l := x.limiter
	if s.Client != nil {
		if s.Client.TimeoutMs > 0 {
			cancel()
			ctx, cancel = context.WithTimeout(context.Background(), time.Duration(s.Client.TimeoutMs)*time.Millisecond)
			defer cancel()
		}
		if s.Client.OnError != "" {
			l = l.WithFailureMode(tollgate.FailureMode(s.Client.OnError))
		}
	}
	cost := tollgate.PolicyCost
	if s.Cost != nil {
		cost = *s.Cost
	}
	switch s.Op {
	case "hit", "peek":
		var d tollgate.Decision
		var err error
		if s.Op == "hit" {
			d, err = l.Hit(ctx, s.Action.String(), s.User.String(), cost)
		} else {
			d, err = l.Peek(ctx, s.Action.String(), s.User.String(), cost)
		}
		if err != nil {
			return nil, err
		}
		return decisionFields(d, s.Op == "peek"), nil
	case "refund", "penalize":
		var r tollgate.RefundResult
		var err error
		if s.Op == "refund" {
			r, err = l.Refund(ctx, s.Action.String(), s.User.String(), cost)
		} else {
			r, err = l.Penalize(ctx, s.Action.String(), s.User.String(), cost, text(s.Actor), text(s.Reason))
		}
		if err != nil {
			return nil, err
		}
		var banUntil int64
		if !r.BanUntil.IsZero() {
			banUntil = r.BanUntil.UnixMilli()
		}
		return map[string]interface{}{"changed": r.Changed, "ban_created": r.BanCreated, "count": r.Count,
			"limit": r.Limit, "remaining": r.Remaining, "reset_ms": ms(r.Reset), "ban_until_ms": banUntil}, nil
	case "ban":
		r, err := l.Ban(ctx, tollgate.Ban{User: s.User.String(), Action: s.Action.String(),
			Duration: time.Duration(s.Ms) * time.Millisecond, Actor: text(s.Actor), Reason: text(s.Reason)})
		if err != nil {
			return nil, err
		}
		var until int64
		if !r.Until.IsZero() {
			until = r.Until.UnixMilli()
		}
		return map[string]interface{}{"until_ms": until, "created_ms": r.Created.UnixMilli()}, nil
	case "unban", "reset":
		var n int64
		var err error
		if s.Op == "unban" {
			n, err = l.Unban(ctx, s.User.String(), s.Action.String(), text(s.Actor), text(s.Reason))
		} else {
			n, err = l.Reset(ctx, s.User.String(), s.Action.String(), text(s.Actor), text(s.Reason))
		}
		if err != nil {
			return nil, err
		}
		return map[string]interface{}{"count": n}, nil
	case "override":
		o := tollgate.Override{User: s.User.String(), Action: s.Action.String(), Unlimited: s.Unlimited,
			Duration: time.Duration(s.Ms) * time.Millisecond, Actor: text(s.Actor), Reason: text(s.Reason)}
		if !s.Unlimited {
			windows, err := tollgate.ParseWindows(s.Windows)
			if err != nil {
				return nil, err
			}
			o.Windows = windows
		}
		return nil, l.SetOverride(ctx, o)
	case "policy":
		var err error
		if s.Delete {
			_, err = l.DeletePolicy(ctx, s.Action.String(), "conformance", "")
		} else {
			_, err = l.SavePolicy(ctx, s.Action.String(), s.Fields, "conformance", "")
		}
		l.ForgetPolicies()
		return nil, err
	case "sleep":
		time.Sleep(time.Duration(s.Ms) * time.Millisecond)
		return nil, nil
	case "redis":
		args := make([]interface{}, 0, len(s.Command))
		for _, a := range s.Command[1:] {
			args = append(args, a)
		}
		if _, err := x.server.Do(s.Command[0], args...); err != nil {
			return nil, &setupError{fmt.Errorf("redis %v: %w", s.Command, err)}
		}
		return nil, nil
	case "freeze":
		return nil, x.server.Freeze()
	case "thaw":
		return nil, x.server.Thaw()
	case "check":
		return nil, nil
	}
	return nil, &setupError{fmt.Errorf("unknown op %q", s.Op)}
}

func ms(d time.Duration) int64 {
	if d == tollgate.Never {
		return -1
	}
	return d.Milliseconds()
}

func decisionFields(d tollgate.Decision, peek bool) map[string]interface{} {
	shadow := int64(0)
	if d.Shadow {
		shadow = 1
		if d.WouldBan {
			shadow = 2
		}
	}
	var message interface{}
	if d.Message != "" {
		message = d.Message
	}
	f := map[string]interface{}{"allowed": d.Allowed, "tier": string(d.Tier), "count": d.Count, "limit": d.Limit,
		"remaining": d.Remaining, "reset_ms": ms(d.Reset), "retry_after_ms": ms(d.RetryAfter), "message": message,
		"override": d.Override, "shadow": shadow, "source": string(d.Source)}
	if peek {
		f["count_now"], f["reset_now_ms"] = d.CountNow, ms(d.ResetNow)
	}
	return f
}

// errorKind is the conformance name of an error of the client.
func errorKind(err error) string {
	for _, k := range []struct {
		kind error
		name string
	}{{tollgate.ErrInvalid, "invalid"}, {tollgate.ErrCorrupt, "corrupt"}, {tollgate.ErrNoPolicy, "no_policy"},
		{tollgate.ErrBadPolicy, "bad_policy"}, {tollgate.ErrContract, "contract"}, {tollgate.ErrNoPerm, "noperm"},
		{tollgate.ErrUnavailable, "unavailable"}} {
		if errors.Is(err, k.kind) {
			return k.name
		}
	}
	return "other (" + err.Error() + ")"
}
