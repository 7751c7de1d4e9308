package tollgate

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// policyEntry is one action's policy as last read (or its absence: err), with its hit.lua call.
type policyEntry struct {
	policy   *Policy
	prepared *prepared
	err      error // ErrNoPolicy, ErrBadPolicy, ErrContract: cached like a policy
	read     time.Time
	inline   bool // given in Options.Policies: never read from Redis, never expires
	stale    bool // an event said it changed: read again, and used only while Redis cannot answer
}

// policyCache keeps the policies read from Redis. While the events subscription is up (live),
// an entry stays until a "policy" event names its action; otherwise it is read again after ttl.
type policyCache struct {
	mu      sync.RWMutex
	entries map[string]*policyEntry
	ttl     time.Duration
	live    atomic.Bool
	// generation goes up with every forget: a read that started before an event must not
	// cache what the event made stale.
	generation atomic.Uint64
}

const maxCachedPolicies = 4096

func (c *policyCache) get(action string) (*policyEntry, bool) {
	c.mu.RLock()
	e := c.entries[action]
	c.mu.RUnlock()
	if e == nil {
		return nil, false
	}
	fresh := e.inline || (!e.stale && (c.live.Load() || time.Since(e.read) < c.ttl))
	return e, fresh
}

func (c *policyCache) put(action string, e *policyEntry, readAt uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.generation.Load() != readAt {
		e.stale = true // forgotten while it was read: the next hit reads it again
	}
	if len(c.entries) >= maxCachedPolicies {
		for a, old := range c.entries {
			if !old.inline {
				delete(c.entries, a)
			}
		}
	}
	c.entries[action] = e
}

// forget marks what was read from Redis stale (one action, or every one when action is ""):
// the next hit reads it again, and uses the old one only if Redis cannot answer.
func (c *policyCache) forget(action string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	for a, e := range c.entries {
		if !e.inline && !e.stale && (action == "" || a == action) {
			marked := *e
			marked.stale = true
			c.entries[a] = &marked
		}
	}
}

// policy is the action's policy and prepared call: from the cache, else read from Redis with
// HGETALL. When Redis cannot answer, a stale entry still serves.
func (l *Limiter) policy(ctx context.Context, action string) (*policyEntry, error) {
	cached, fresh := l.policies.get(action)
	if fresh {
		return cached, cached.err
	}
	now, readAt := time.Now(), l.policies.generation.Load()
	fields, err := l.readHash(ctx, l.keys.policyKey(action))
	if err != nil {
		if cached != nil && errors.Is(err, ErrUnavailable) {
			return cached, cached.err
		}
		return nil, err
	}
	e := &policyEntry{read: now}
	if len(fields) == 0 {
		e.err = &Error{Kind: ErrNoPolicy, Action: action,
			Message: "there is no policy " + l.keys.policyKey(action) + " (tollgatectl policy set " + action + " ...)"}
	} else if p, perr := ParsePolicy(action, fields); perr != nil {
		e.err = perr
	} else {
		e.policy, e.prepared = &p, prepare(&p, l.keys, false)
	}
	l.policies.put(action, e, readAt)
	return e, e.err
}

// readHash is HGETALL as a map (RESP2 pairs or a RESP3 map, whichever the adapter gives).
func (l *Limiter) readHash(ctx context.Context, key string) (map[string]string, error) {
	reply, err := l.client.Do(ctx, "HGETALL", key)
	if err != nil {
		return nil, classify(err)
	}
	fields := map[string]string{}
	switch r := reply.(type) {
	case []interface{}:
		for i := 0; i+1 < len(r); i += 2 {
			k, ok1 := replyString(r[i])
			v, ok2 := replyString(r[i+1])
			if !ok1 || !ok2 {
				return nil, newError(ErrReply, "HGETALL %s: unexpected reply", key)
			}
			fields[k] = v
		}
	case map[interface{}]interface{}:
		for k, v := range r {
			ks, ok1 := replyString(k)
			vs, ok2 := replyString(v)
			if !ok1 || !ok2 {
				return nil, newError(ErrReply, "HGETALL %s: unexpected reply", key)
			}
			fields[ks] = vs
		}
	case map[string]interface{}:
		for k, v := range r {
			vs, ok := replyString(v)
			if !ok {
				return nil, newError(ErrReply, "HGETALL %s: unexpected reply", key)
			}
			fields[k] = vs
		}
	case nil:
	default:
		return nil, newError(ErrReply, "HGETALL %s: unexpected reply %T", key, reply)
	}
	return fields, nil
}

// Subscribed says whether the events subscription is up: policy changes then apply at once,
// otherwise after PolicyTTL.
func (l *Limiter) Subscribed() bool { return l.policies.live.Load() }

// ForgetPolicies drops every policy read from Redis (the next hit reads it again). Needed only
// when the adapter cannot subscribe to the events channel and a change must apply at once.
func (l *Limiter) ForgetPolicies() { l.policies.forget("") }

// watchEvents listens to <prefix>:events while ctx lives, dropping a policy when an event says
// it changed, and the whole cache whenever the subscription (re)starts, since events may have
// been missed while it was down.
func (l *Limiter) watchEvents(ctx context.Context, sub Subscriber) {
	for ctx.Err() == nil {
		_ = sub.Listen(ctx, l.keys.eventsChannel(), func() {
			l.policies.forget("")
			l.policies.live.Store(true)
		}, l.onEvent)
		l.policies.live.Store(false)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// onEvent reads "<event>\n<byte length of user>\n<user><action>" (lua/README.md, "Events"); for
// "policy" the action is the escaped one. Events of other kinds are ignored.
func (l *Limiter) onEvent(payload []byte) {
	text := string(payload)
	event, rest, ok1 := strings.Cut(text, "\n")
	length, ids, ok2 := strings.Cut(rest, "\n")
	n, err := strconv.Atoi(length)
	if !ok1 || !ok2 || err != nil || n < 0 || n > len(ids) || event != "policy" {
		return
	}
	if action, ok := unescapeID(ids[n:]); ok {
		l.policies.forget(action)
	} else {
		l.policies.forget("")
	}
}
