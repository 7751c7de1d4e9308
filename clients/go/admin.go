package tollgate

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Override gives one user other limits for an action (or "*": every action), or none
// (Unlimited: counted, never denied, never banned automatically), for a while
// (lua/README.md, "Overrides").
type Override struct {
	User      string
	Action    string   // an action, or "*"
	Windows   []Window // the limits, unless Unlimited
	Unlimited bool
	Duration  time.Duration // 0 and Until zero = permanent
	Until     time.Time
	Actor     string // required
	Reason    string // required
}

// SetOverride writes the override with override_set.lua (audited, event "override"). On a
// cluster it then updates the override index itself, as the C++ OverrideStore does.
func (l *Limiter) SetOverride(ctx context.Context, o Override) error {
	if err := l.checkModeration(o.User, o.Action, o.Actor, o.Reason, true); err != nil {
		return err
	}
	kind, windows := "limit", windowsText(o.Windows)
	if o.Unlimited {
		kind, windows = "unlimited", ""
	}
	var until int64
	if !o.Until.IsZero() {
		until = o.Until.UnixMilli()
	}
	ctx = l.withDeadline(ctx)
	reply, err := overrideSetScript.call(ctx, l.client, false, l.overrideKeys(o.User), o.User, o.Action,
		o.Actor, o.Reason, kind, windows, strconv.FormatInt(o.Duration.Milliseconds(), 10),
		strconv.FormatInt(until, 10), l.keys.eventsChannel())
	if err != nil {
		return err
	}
	a, ok := replyArray(reply)
	if !ok || len(a) < 3 {
		return newError(ErrReply, "malformed reply from override_set.lua: %v", reply)
	}
	keyEnd, _ := replyInt(a[2])
	return l.indexOverride(ctx, o.User, keyEnd)
}

// DeleteOverride removes the user's override of action ("*": the every-action one only).
func (l *Limiter) DeleteOverride(ctx context.Context, user, action, actor, reason string) (bool, error) {
	if err := l.checkModeration(user, action, actor, reason, true); err != nil {
		return false, err
	}
	ctx = l.withDeadline(ctx)
	reply, err := overrideDeleteScript.call(ctx, l.client, false, l.overrideKeys(user), user, action, actor,
		reason, l.keys.eventsChannel())
	if err != nil {
		return false, err
	}
	a, ok := replyArray(reply)
	if !ok || len(a) < 2 {
		return false, newError(ErrReply, "malformed reply from override_delete.lua: %v", reply)
	}
	deleted, _ := replyInt(a[0])
	keyEnd, _ := replyInt(a[1])
	return deleted == 1, l.indexOverride(ctx, user, keyEnd)
}

func (l *Limiter) overrideKeys(user string) []string {
	base := l.keys.userBase(EscapeID(user))
	hash, audit := base+":overrides", base+":audit"
	index := l.keys.overrideIndexKey()
	if l.opts.Cluster {
		index = hash // the index is in no user's slot: written below instead
	}
	return []string{hash, audit, l.keys.auditMirror(audit), index}
}

// indexOverride keeps the cluster's override index (<p>:{:}:overrides) after the script.
func (l *Limiter) indexOverride(ctx context.Context, user string, keyEnd int64) error {
	if !l.opts.Cluster {
		return nil
	}
	var err error
	switch {
	case keyEnd == 0:
		_, err = l.client.Do(ctx, "ZREM", l.keys.overrideIndexKey(), EscapeID(user))
	case keyEnd < 0:
		_, err = l.client.Do(ctx, "ZADD", l.keys.overrideIndexKey(), "+inf", EscapeID(user))
	default:
		_, err = l.client.Do(ctx, "ZADD", l.keys.overrideIndexKey(), strconv.FormatInt(keyEnd, 10), EscapeID(user))
	}
	if err != nil {
		return classify(err)
	}
	return nil
}

// SavePolicy writes the action's policy hash with policy_set.lua from its fields (as
// lua/README.md "The policy hash" lists them; Policy.Fields gives them), over the revision
// stored now, with the audit entry and the event "policy". It answers the new revision.
func (l *Limiter) SavePolicy(ctx context.Context, action string, fields map[string]string, actor, reason string) (int64, error) {
	if err := validateID(action, "action"); err != nil {
		return 0, err
	}
	if strings.TrimSpace(actor) == "" {
		return 0, newError(ErrInvalid, "saving a policy needs an actor")
	}
	ctx = l.withDeadline(ctx)
	revision, err := l.storedRevision(ctx, action)
	if err != nil {
		return 0, err
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	args := []interface{}{strconv.FormatInt(revision, 10), actor, l.keys.eventsChannel(), reason}
	for _, name := range names {
		args = append(args, name, fields[name])
	}
	reply, err := policySetScript.call(ctx, l.client, false, l.policyKeys(action), args...)
	l.policies.forget(action)
	if err != nil {
		return 0, err
	}
	n, _ := replyInt(reply)
	return n, nil
}

// DeletePolicy deletes the action's policy (kept in its history), audited, event "policy".
func (l *Limiter) DeletePolicy(ctx context.Context, action, actor, reason string) (bool, error) {
	if err := validateID(action, "action"); err != nil {
		return false, err
	}
	ctx = l.withDeadline(ctx)
	revision, err := l.storedRevision(ctx, action)
	if err != nil {
		return false, err
	}
	reply, err := policyDeleteScript.call(ctx, l.client, false, l.policyKeys(action),
		strconv.FormatInt(revision, 10), actor, l.keys.eventsChannel(), reason)
	l.policies.forget(action)
	if err != nil {
		return false, err
	}
	n, _ := replyInt(reply)
	return n == 1, nil
}

func (l *Limiter) policyKeys(action string) []string {
	return []string{l.keys.policyKey(action), l.keys.policyAuditKey(), l.keys.policyIndexKey(), l.keys.policyHistoryKey(action)}
}

func (l *Limiter) storedRevision(ctx context.Context, action string) (int64, error) {
	reply, err := l.client.Do(ctx, "HGET", l.keys.policyKey(action), "revision")
	if err != nil {
		return 0, classify(err)
	}
	if reply == nil {
		return 0, nil
	}
	n, _ := replyInt(reply)
	return n, nil
}

// Fields is the policy as policy_set.lua stores it (without the script-owned fields).
func (p Policy) Fields() map[string]string {
	align, countDenied := "first_hit", "0"
	if p.Calendar {
		align = "calendar"
	}
	if p.CountDenied {
		countDenied = "1"
	}
	cost := p.Cost
	if cost == 0 {
		cost = 1
	}
	algorithm := p.Algorithm
	if algorithm == "" {
		algorithm = FixedWindow
	}
	tz := p.TimeZone
	if tz == "" {
		tz = "UTC"
	}
	f := map[string]string{"algorithm": string(algorithm), "windows": windowsText(p.Windows),
		"cost": strconv.FormatInt(cost, 10), "warn": strconv.FormatInt(p.Warn, 10),
		"ban_ms": strconv.FormatInt(p.Ban.Milliseconds(), 10), "ban_until": p.BanUntil, "align": align,
		"tz": tz, "count_denied": countDenied}
	// For clients without a zone database: the offsets for the next 10 years.
	if loc, err := p.zone(); err == nil && loc != nil {
		now := time.Now()
		f["tz_offsets"] = zoneOffsets(loc, now.Add(-24*time.Hour), now.Add(10*365*24*time.Hour))
	}
	if p.Message != "" {
		f["message"] = p.Message
	}
	if p.OnError != "" && p.OnError != Report {
		f["on_error"] = string(p.OnError)
	}
	if p.Shadow {
		f["shadow"] = "1"
	}
	return f
}
