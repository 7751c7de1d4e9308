package tollgate

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// RefundResult is refund.lua's answer: the window with the smallest remaining after the call.
type RefundResult struct {
	Changed    bool // false: nothing was written (a refund of empty windows)
	BanCreated bool // a penalty crossed a limit of a policy that bans
	Count      int64
	Limit      int64
	Remaining  int64
	Reset      time.Duration
	BanUntil   time.Time // the end of the ban created; zero when none
}

// Refund gives back cost units (PolicyCost: the policy's) in every window of the action's
// policy, never below empty and never extending a TTL: for a call that failed after its hit.
func (l *Limiter) Refund(ctx context.Context, action, user string, cost int64) (RefundResult, error) {
	return l.refund(ctx, "refund", action, user, cost, "", "")
}

// Penalize counts cost more units in every window, past the limit too, and bans as the policy
// says when a hit of that cost would have been denied (audited with actor and reason, both
// required).
func (l *Limiter) Penalize(ctx context.Context, action, user string, cost int64, actor, reason string) (RefundResult, error) {
	if strings.TrimSpace(actor) == "" || strings.TrimSpace(reason) == "" {
		return RefundResult{}, newError(ErrInvalid, "a penalty needs an actor and a reason")
	}
	return l.refund(ctx, "penalize", action, user, cost, actor, reason)
}

// refund runs refund.lua with hit.lua's full form (lua/README.md, "refund.lua"), following
// TG_OVERRIDE to the windows of the user's override as a hit does.
func (l *Limiter) refund(ctx context.Context, mode, action, user string, cost int64, actor, reason string) (RefundResult, error) {
	if err := validateID(action, "action"); err != nil {
		return RefundResult{}, err
	}
	if err := validateID(user, "user id"); err != nil {
		return RefundResult{}, err
	}
	if err := checkCost(cost); err != nil {
		return RefundResult{}, err
	}
	ctx = l.withDeadline(ctx)
	entry, err := l.policy(ctx, action)
	if err != nil {
		return RefundResult{}, err
	}
	if err := l.ensureContract(ctx); err != nil {
		return RefundResult{}, err
	}
	policy := *entry.policy
	if cost == PolicyCost {
		cost = policy.Cost
	}
	offsets, err := policy.offsets(time.Now())
	if err != nil {
		return RefundResult{}, err
	}
	sent, forOverride := policy, false
	for redirects := 0; ; redirects++ {
		reply, err := refundScript.call(ctx, l.client, false, l.refundKeys(&sent, user),
			l.refundArgs(mode, &sent, user, cost, offsets, actor, reason, forOverride)...)
		var redirect *scriptRedirect
		if !errors.As(err, &redirect) {
			if err != nil {
				return RefundResult{}, err
			}
			return refundFromReply(reply)
		}
		if redirects == 2 {
			return RefundResult{}, newError(ErrReply, "the override of user %.200q changed during the call, twice", user)
		}
		if redirect.target == "policy" {
			sent, forOverride = policy, false
			continue
		}
		windows, err := parseOverrideWindows(redirect.target)
		if err != nil {
			return RefundResult{}, err
		}
		sent, forOverride = withOverrideWindows(policy, windows), true
	}
}

func (l *Limiter) refundKeys(p *Policy, user string) []string {
	base := l.keys.userBase(EscapeID(user))
	escAction := EscapeID(p.Action)
	audit := base + ":audit"
	keys := []string{base + ":ban", base + ":" + escAction + ":ban", base + ":overrides", audit, l.keys.auditMirror(audit)}
	for _, w := range p.Windows {
		keys = append(keys, base+":"+escAction+":"+algorithmCode(p.Algorithm)+":"+strconv.FormatInt(w.Window.Milliseconds(), 10))
	}
	return keys
}

func (l *Limiter) refundArgs(mode string, p *Policy, user string, cost int64, offsets, actor, reason string, forOverride bool) []interface{} {
	countDenied, align := "0", "first_hit"
	if p.CountDenied {
		countDenied = "1"
	}
	if p.Calendar {
		align = "calendar"
	}
	args := []interface{}{mode, string(p.Algorithm), strconv.FormatInt(cost, 10), countDenied,
		strconv.FormatInt(p.Warn, 10), strconv.FormatInt(p.Ban.Milliseconds(), 10), p.BanUntil, offsets,
		user, p.Action, l.keys.eventsChannel(), align, actor, reason}
	for _, w := range p.Windows {
		args = append(args, strconv.FormatInt(w.Limit, 10), strconv.FormatInt(w.Window.Milliseconds(), 10))
	}
	if forOverride {
		args = append(args, "override")
	}
	return args
}

func refundFromReply(reply interface{}) (RefundResult, error) {
	a, ok := replyArray(reply)
	if !ok || len(a) < 7 {
		return RefundResult{}, newError(ErrReply, "malformed reply from refund.lua: %v", reply)
	}
	var n [7]int64
	for i := range n {
		if n[i], ok = replyInt(a[i]); !ok {
			return RefundResult{}, newError(ErrReply, "malformed reply from refund.lua: %v", reply)
		}
	}
	r := RefundResult{Changed: n[0] == 1, BanCreated: n[1] == 1, Count: n[2], Limit: n[3], Remaining: n[4],
		Reset: msDuration(n[5])}
	if n[6] > 0 {
		r.BanUntil = time.UnixMilli(n[6])
	}
	return r, nil
}
