package tollgate

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Ban is a ban to write with ban.lua (lua/README.md, "ban.lua").
type Ban struct {
	User     string
	Action   string        // "" = every action of the user
	Duration time.Duration // 0 and Until zero = permanent
	Until    time.Time     // an absolute end instead of Duration
	Actor    string        // who: required
	Reason   string        // why: required
}

// BanResult is ban.lua's answer.
type BanResult struct {
	Until   time.Time // zero: permanent
	Created time.Time
}

// Ban writes the ban with its audit entries (the user's and the global stream) and the event
// "ban", in one atomic step. It replaces any ban of the same user and action.
func (l *Limiter) Ban(ctx context.Context, b Ban) (BanResult, error) {
	if err := l.checkModeration(b.User, b.Action, b.Actor, b.Reason, true); err != nil {
		return BanResult{}, err
	}
	var until int64
	if !b.Until.IsZero() {
		until = b.Until.UnixMilli()
	}
	ctx = l.withDeadline(ctx)
	base := l.keys.userBase(EscapeID(b.User))
	key := base + ":ban"
	if b.Action != "" {
		key = base + ":" + EscapeID(b.Action) + ":ban"
	}
	audit := base + ":audit"
	reply, err := banScript.call(ctx, l.client, false, []string{key, audit, l.keys.auditMirror(audit)},
		b.User, b.Action, b.Actor, b.Reason, strconv.FormatInt(b.Duration.Milliseconds(), 10),
		strconv.FormatInt(until, 10), l.keys.eventsChannel())
	if err != nil {
		return BanResult{}, err
	}
	a, ok := replyArray(reply)
	if !ok || len(a) < 2 {
		return BanResult{}, newError(ErrReply, "malformed reply from ban.lua: %v", reply)
	}
	untilMs, _ := replyInt(a[0])
	createdMs, _ := replyInt(a[1])
	r := BanResult{Created: time.UnixMilli(createdMs)}
	if untilMs > 0 {
		r.Until = time.UnixMilli(untilMs)
	}
	return r, nil
}

// Unban removes the user's ban of action, or with action "" every ban of the user, with an
// audit entry "unban" even when there was none. It answers how many bans it removed.
func (l *Limiter) Unban(ctx context.Context, user, action, actor, reason string) (int64, error) {
	if err := l.checkModeration(user, action, actor, reason, true); err != nil {
		return 0, err
	}
	ctx = l.withDeadline(ctx)
	base := l.keys.userBase(EscapeID(user))
	var keys []string
	if action != "" {
		keys = []string{base + ":" + EscapeID(action) + ":ban"}
	} else {
		found, err := l.userKeys(ctx, user, "", func(k userKey) bool { return k.kind == "ban" })
		if err != nil {
			return 0, err
		}
		keys = append([]string{base + ":ban"}, found...)
	}
	return l.deleteWithAudit(ctx, unbanScript, user, action, actor, reason, keys)
}

// Reset deletes the user's counters of action (every action when ""), leaving bans alone, with
// an audit entry "reset". It answers how many keys it deleted.
func (l *Limiter) Reset(ctx context.Context, user, action, actor, reason string) (int64, error) {
	if err := l.checkModeration(user, action, actor, reason, false); err != nil {
		return 0, err
	}
	ctx = l.withDeadline(ctx)
	keys, err := l.userKeys(ctx, user, action, func(k userKey) bool { return k.kind == "state" })
	if err != nil {
		return 0, err
	}
	return l.deleteWithAudit(ctx, resetScript, user, action, actor, reason, keys)
}

func (l *Limiter) checkModeration(user, action, actor, reason string, needReason bool) error {
	if err := validateID(user, "user id"); err != nil {
		return err
	}
	if action != "" {
		if err := validateID(action, "action"); err != nil {
			return err
		}
	}
	if strings.TrimSpace(actor) == "" || (needReason && strings.TrimSpace(reason) == "") {
		return newError(ErrInvalid, "a moderation needs an actor and a reason")
	}
	return nil
}

// deleteWithAudit runs unban.lua or reset.lua: KEYS user audit, global audit, the keys.
func (l *Limiter) deleteWithAudit(ctx context.Context, s *script, user, action, actor, reason string, keys []string) (int64, error) {
	audit := l.keys.userBase(EscapeID(user)) + ":audit"
	reply, err := s.call(ctx, l.client, false, append([]string{audit, l.keys.auditMirror(audit)}, keys...),
		user, action, actor, reason, l.keys.eventsChannel())
	if err != nil {
		return 0, err
	}
	n, ok := replyInt(reply)
	if !ok {
		return 0, newError(ErrReply, "malformed reply from %s.lua: %v", s.name, reply)
	}
	return n, nil
}

// userKey is one of a user's keys as the key schema reads it.
type userKey struct {
	key  string
	kind string // "ban" (an action's), "state", "other"
}

// userKeys finds the user's action bans or state keys (of one action, or all with ""):
// SCAN MATCH <p>:{<user>}:* on a single server, parsed so that foreign keys sharing the
// pattern are left out. On a cluster a keyless SCAN cannot be routed to the user's node: the
// keys are then those the policies in the policy index name.
func (l *Limiter) userKeys(ctx context.Context, user, action string, want func(userKey) bool) ([]string, error) {
	base := l.keys.userBase(EscapeID(user)) + ":"
	escAction := EscapeID(action)
	parse := func(key string) userKey {
		rest := strings.TrimPrefix(key, base)
		parts := strings.Split(rest, ":")
		if action != "" && parts[0] != escAction {
			return userKey{key, "other"}
		}
		if len(parts) == 2 && parts[1] == "ban" {
			return userKey{key, "ban"}
		}
		if len(parts) == 3 && strings.Contains("fw sl sw tb", parts[1]) && len(parts[1]) == 2 {
			if _, err := strconv.ParseInt(parts[2], 10, 64); err == nil {
				return userKey{key, "state"}
			}
		}
		return userKey{key, "other"}
	}
	var candidates []string
	if l.opts.Cluster {
		var err error
		if candidates, err = l.keysFromPolicies(ctx, base, action); err != nil {
			return nil, err
		}
	} else {
		pattern := base + "*"
		if action != "" {
			pattern = base + escAction + ":*"
		}
		cursor := "0"
		for {
			reply, err := l.client.Do(ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
			if err != nil {
				return nil, classify(err)
			}
			a, ok := replyArray(reply)
			if !ok || len(a) != 2 {
				return nil, newError(ErrReply, "malformed SCAN reply: %v", reply)
			}
			cursor, _ = replyString(a[0])
			batch, _ := replyArray(a[1])
			for _, k := range batch {
				if s, ok := replyString(k); ok {
					candidates = append(candidates, s)
				}
			}
			if cursor == "0" || cursor == "" {
				break
			}
		}
	}
	var keys []string
	for _, k := range candidates {
		if uk := parse(k); want(uk) {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// keysFromPolicies: every key the stored policies give the user (action bans and state keys).
func (l *Limiter) keysFromPolicies(ctx context.Context, base, action string) ([]string, error) {
	actions := []string{action}
	if action == "" {
		reply, err := l.client.Do(ctx, "SMEMBERS", l.keys.policyIndexKey())
		if err != nil {
			return nil, classify(err)
		}
		members, _ := replyArray(reply)
		actions = actions[:0]
		for _, m := range members {
			if s, ok := replyString(m); ok && s != "*" {
				if a, ok := unescapeID(s); ok {
					actions = append(actions, a)
				}
			}
		}
	}
	var keys []string
	for _, a := range actions {
		keys = append(keys, base+EscapeID(a)+":ban")
		if e, err := l.policy(ctx, a); err == nil {
			for _, suffix := range e.prepared.stateSuffixes {
				keys = append(keys, base+suffix[1:])
			}
		}
	}
	return keys, nil
}
