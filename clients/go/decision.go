package tollgate

import "time"

// Tier is hit.lua's verdict: ok, warn (allowed, above the warn level), deny, banned.
type Tier string

const (
	TierOK     Tier = "ok"
	TierWarn   Tier = "warn"
	TierDeny   Tier = "deny"
	TierBanned Tier = "banned"
)

// Source says which path answered a hit.
type Source string

const (
	SourceRedis         Source = "redis"          // hit.lua, in Redis
	SourceFailurePolicy Source = "failure_policy" // Redis did not answer; FailureMode decided
)

// Never is a RetryAfter that has no end (a permanent ban, or a cost above a limit).
const Never time.Duration = -1

// Decision is the answer to a hit or a peek (hit.lua's reply, lua/README.md).
type Decision struct {
	Allowed    bool
	Tier       Tier
	Count      int64         // the binding window's count (after the hit)
	Limit      int64         // its limit
	Remaining  int64         // what is left of it
	Reset      time.Duration // until that window holds nothing
	RetryAfter time.Duration // 0 when allowed; Never when no wait helps
	Message    string        // the policy's message, when not allowed
	Source     Source
	// FailureMode is the mode that answered when Source is SourceFailurePolicy, and RedisErr
	// why Redis could not.
	FailureMode FailureMode
	RedisErr    error
	// Override is the user's override that decided: "" (none), "limit" or "unlimited".
	Override string
	// Shadow: a shadow policy's hit, always allowed; Tier and the rest are what enforcing it
	// would answer, WouldBan when it would also have banned.
	Shadow   bool
	WouldBan bool
	// A peek's: the binding window as it stands, before the hit it weighs.
	CountNow int64
	ResetNow time.Duration

	policy *Policy // the policy decided by (for the header fields)
}

// Policy is the policy the decision was made by.
func (d *Decision) Policy() *Policy { return d.policy }

func msDuration(ms int64) time.Duration {
	if ms < 0 {
		return Never
	}
	return time.Duration(ms) * time.Millisecond
}

// decisionFromReply reads hit.lua's reply: 7 elements, 9 with an override or in shadow mode,
// 11 for a peek.
func decisionFromReply(reply interface{}) (Decision, error) {
	malformed := func() (Decision, error) {
		return Decision{}, newError(ErrReply, "malformed reply from hit.lua: %v", reply)
	}
	a, ok := replyArray(reply)
	if !ok || len(a) < 7 {
		return malformed()
	}
	var n [5]int64
	for i := range n {
		if n[i], ok = replyInt(a[i+2]); !ok {
			return malformed()
		}
	}
	allowed, ok1 := replyInt(a[0])
	tier, ok2 := replyString(a[1])
	if !ok1 || !ok2 {
		return malformed()
	}
	switch Tier(tier) {
	case TierOK, TierWarn, TierDeny, TierBanned:
	default:
		return malformed()
	}
	d := Decision{Allowed: allowed == 1, Tier: Tier(tier), Count: n[0], Limit: n[1], Remaining: n[2],
		Reset: msDuration(n[3]), RetryAfter: msDuration(n[4]), Source: SourceRedis}
	if len(a) >= 9 {
		applied, ok1 := replyString(a[7])
		shadow, ok2 := replyInt(a[8])
		if !ok1 || !ok2 || shadow < 0 || shadow > 2 || (applied != "" && applied != "limit" && applied != "unlimited") {
			return malformed()
		}
		d.Override, d.Shadow, d.WouldBan = applied, shadow > 0, shadow == 2
	}
	if len(a) >= 11 {
		count, ok1 := replyInt(a[9])
		reset, ok2 := replyInt(a[10])
		if !ok1 || !ok2 || count < 0 || reset < 0 {
			return malformed()
		}
		d.CountNow, d.ResetNow = count, msDuration(reset)
	}
	return d, nil
}
