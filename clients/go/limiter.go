package tollgate

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// PolicyCost as a hit's cost: the policy's own (field cost).
const PolicyCost int64 = -1

// Options configure a Limiter. The zero value works: prefix "tg", a single server.
type Options struct {
	Prefix string // the key prefix; "" = "tg"
	// Cluster selects the Redis Cluster key layout (policies under "{:}", no global audit
	// mirror in user calls). Only for adapters whose client routes commands by key.
	Cluster bool
	// Policies given inline: their actions are never read from Redis.
	Policies []Policy
	// PolicyTTL is how long a policy read from Redis is used before it is read again, while
	// the events channel cannot tell of changes (the adapter is no Subscriber, or the
	// subscription is down). Default 5 s.
	PolicyTTL time.Duration
	// NoEvents: do not subscribe to <prefix>:events even when the adapter can.
	NoEvents bool
	// OnError, when set, is what every hit answers when Redis cannot, in place of each
	// policy's field on_error.
	OnError FailureMode
	// Insurance counts hits while Redis is away (FailureMode Insurance). Default: one per
	// Limiter with factor 1.
	Insurance *InsuranceLimiter
	// RecordStats feeds the console's per-second statistics (the Dashboard, the metrics
	// exporter): outcomes are added up per action and written with stats.lua at most once a
	// second, off the hit's path. Close writes what is pending.
	RecordStats bool
	// Timeout bounds a call whose ctx has no deadline. Default 1 s. It is reported as
	// ctx.Deadline() to the adapter, which sets its socket timeouts from it (the redigo adapter
	// and go-redis do), not enforced by a timer of this package.
	Timeout time.Duration
}

// Limiter decides hits with hit.lua, one EVALSHA per decision. It is safe for concurrent use;
// Close stops its events subscription.
type Limiter struct {
	*limiterState
	onError FailureMode // this view's failure mode (WithFailureMode); "" = Options, then policy
}

type limiterState struct {
	client     Client
	keys       keySchema
	opts       Options
	policies   policyCache
	targets    overrideTargets
	insurance  *InsuranceLimiter
	contractOK atomic.Bool
	stats      *hitStats // nil: statistics off
	stop       context.CancelFunc
	closeOnce  sync.Once
}

// NewLimiter makes a Limiter over client. It checks the options and the inline policies
// (ErrInvalid, ErrBadPolicy); the server's script contract is asked on the first call.
func NewLimiter(client Client, opts Options) (*Limiter, error) {
	if opts.Prefix == "" {
		opts.Prefix = "tg"
	}
	if err := validatePrefix(opts.Prefix); err != nil {
		return nil, err
	}
	if opts.PolicyTTL <= 0 {
		opts.PolicyTTL = 5 * time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	switch opts.OnError {
	case "", Report, Allow, Deny, Insurance:
	default:
		return nil, newError(ErrInvalid, "unknown failure mode %q (report, allow, deny or insurance)", opts.OnError)
	}
	s := &limiterState{client: client, keys: keySchema{prefix: opts.Prefix, cluster: opts.Cluster}, opts: opts,
		insurance: opts.Insurance}
	if s.insurance == nil {
		s.insurance = NewInsuranceLimiter(1, 0)
	}
	s.policies.entries = map[string]*policyEntry{}
	s.policies.ttl = opts.PolicyTTL
	for i := range opts.Policies {
		p := opts.Policies[i]
		if err := p.Validate(); err != nil {
			return nil, err
		}
		s.policies.entries[p.Action] = &policyEntry{policy: &p, prepared: prepare(&p, s.keys, false), inline: true}
	}
	l := &Limiter{limiterState: s}
	if opts.RecordStats {
		s.stats = &hitStats{limiter: l, pending: map[string]*statCounts{}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	if sub, ok := client.(Subscriber); ok && !opts.NoEvents {
		go l.watchEvents(ctx, sub)
	}
	return l, nil
}

// Close stops the events subscription and writes the statistics still pending. The Limiter
// still answers afterwards, reading policies again every PolicyTTL.
func (l *Limiter) Close() error {
	l.closeOnce.Do(func() {
		l.stop()
		if l.stats != nil {
			l.stats.close()
		}
	})
	return nil
}

// WithFailureMode is a Limiter sharing this one's caches whose hits answer with mode when
// Redis cannot, whatever the options and the policy say.
func (l *Limiter) WithFailureMode(mode FailureMode) *Limiter {
	return &Limiter{limiterState: l.limiterState, onError: mode}
}

// Hit counts one hit of cost units (PolicyCost: the policy's) of user against the action's
// policy and answers whether it may go ahead. A shadow policy's hit is always allowed.
func (l *Limiter) Hit(ctx context.Context, action, user string, cost int64) (Decision, error) {
	return l.decide(ctx, false, action, user, cost)
}

// Peek answers what a hit of cost units would get, counting nothing (EVALSHA_RO).
func (l *Limiter) Peek(ctx context.Context, action, user string, cost int64) (Decision, error) {
	return l.decide(ctx, true, action, user, cost)
}

// withDeadline gives a ctx without a deadline the default one. It only reports it
// (ctx.Deadline), which the adapters turn into their socket timeouts, instead of starting a
// timer per call: a decision's own cost is what this package is measured by.
func (l *Limiter) withDeadline(ctx context.Context) context.Context {
	if _, ok := ctx.Deadline(); ok {
		return ctx
	}
	return deadlineOnly{ctx, time.Now().Add(l.opts.Timeout)}
}

// deadlineOnly is a context that reports a deadline it does not enforce itself.
type deadlineOnly struct {
	context.Context
	at time.Time
}

func (d deadlineOnly) Deadline() (time.Time, bool) { return d.at, true }

func checkCost(cost int64) error {
	if cost != PolicyCost && (cost < 1 || cost > maxLimit) {
		return newError(ErrInvalid, "cost must be between 1 and %d (or PolicyCost), got %d", maxLimit, cost)
	}
	return nil
}

func (l *Limiter) decide(ctx context.Context, peek bool, action, user string, cost int64) (Decision, error) {
	if err := validateID(action, "action"); err != nil {
		return Decision{}, err
	}
	if err := validateID(user, "user id"); err != nil {
		return Decision{}, err
	}
	if err := checkCost(cost); err != nil {
		return Decision{}, err
	}
	ctx = l.withDeadline(ctx)
	entry, err := l.policy(ctx, action)
	if err != nil {
		if entry == nil && errors.Is(err, ErrUnavailable) {
			// Not even the policy could be read: only the caller's own mode can answer.
			mode := l.failureMode(&Policy{OnError: Report})
			if mode == Allow || mode == Deny {
				return l.answerWithoutRedis(mode, &Policy{Action: action}, user, cost, !peek, err)
			}
		}
		return Decision{}, err
	}
	policy := entry.policy
	d, err := l.send(ctx, entry.prepared, peek, user, cost)
	if err != nil {
		return l.answerWithoutRedis(l.failureMode(policy), policy, user, cost, !peek, err)
	}
	if !d.Allowed {
		d.Message = policy.Message
	}
	d.policy = policy
	if l.stats != nil && !peek {
		l.stats.record(policy, &d, cost)
	}
	return d, nil
}

// failureMode: this view's, else the options', else the policy's own on_error.
func (l *Limiter) failureMode(p *Policy) FailureMode {
	if l.onError != "" {
		return l.onError
	}
	if l.opts.OnError != "" {
		return l.opts.OnError
	}
	if p.OnError == "" {
		return Report
	}
	return p.OnError
}

// send runs hit.lua for the user, following at most two TG_OVERRIDE redirects to the windows
// of the user's override (lua/README.md, "Overrides"), and remembers where the user was sent.
func (l *Limiter) send(ctx context.Context, base *prepared, peek bool, user string, cost int64) (Decision, error) {
	if err := l.ensureContract(ctx); err != nil {
		return Decision{}, err
	}
	offsets := "0"
	if base.policy.needsLocalTime() {
		var err error
		if offsets, err = base.policy.offsets(time.Now()); err != nil {
			return Decision{}, err
		}
	}
	pr := base
	if target := l.targets.find(base, user); target != nil {
		pr = target
	}
	for redirects := 0; ; redirects++ {
		reply, err := hitScript.evalsha(ctx, l.client, pr.command(l.keys, peek, user, cost, offsets))
		if err == nil {
			return decisionFromReply(reply)
		}
		redirect, ok := err.(*scriptRedirect)
		if !ok {
			return Decision{}, err
		}
		if redirects == 2 {
			return Decision{}, newError(ErrReply, "the override of user %.200q changed during the hit, twice", user)
		}
		if redirect.target == "policy" {
			l.targets.forget(base, user)
			pr = base
			continue
		}
		windows, err := parseOverrideWindows(redirect.target)
		if err != nil {
			return Decision{}, err
		}
		with := withOverrideWindows(*base.policy, windows)
		if err := with.Validate(); err != nil {
			return Decision{}, &Error{Kind: ErrInvalid, Action: base.policy.Action,
				Message: "the override of user " + user + ": " + err.Error()}
		}
		if offsets, err = with.offsets(time.Now()); err != nil {
			return Decision{}, err
		}
		pr = prepare(&with, l.keys, true)
		l.targets.remember(base, user, pr)
	}
}

// ensureContract asks the server once which script contract it runs (lua/README.md).
func (l *Limiter) ensureContract(ctx context.Context) error {
	if l.contractOK.Load() {
		return nil
	}
	if err := checkContract(ctx, l.client); err != nil {
		return err
	}
	l.contractOK.Store(true)
	return nil
}

// answerWithoutRedis is the failure policy's answer when Redis could not decide, or err itself
// when the mode is Report or err is no unavailability (a refusal, bad data). A shadow policy's
// hit is allowed whatever the mode.
func (l *Limiter) answerWithoutRedis(mode FailureMode, p *Policy, user string, cost int64, count bool, err error) (Decision, error) {
	if mode == Report || !errors.Is(err, ErrUnavailable) {
		return Decision{}, err
	}
	var d Decision
	switch mode {
	case Allow:
		d = Decision{Allowed: true, Tier: TierOK}
	case Deny:
		d = Decision{Allowed: false, Tier: TierDeny}
	case Insurance:
		d = l.insurance.hit(p, user, cost, count)
	default:
		return Decision{}, err
	}
	d.Source, d.FailureMode, d.RedisErr, d.policy = SourceFailurePolicy, mode, err, p
	if p.Shadow && count {
		d.Shadow, d.Allowed = true, true
	}
	if !d.Allowed {
		d.Message = p.Message
	}
	return d, nil
}
