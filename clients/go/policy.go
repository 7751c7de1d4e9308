package tollgate

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Algorithm is how a policy counts (lua/README.md, "Algorithms").
type Algorithm string

const (
	FixedWindow   Algorithm = "fixed_window"
	SlidingLog    Algorithm = "sliding_log"
	SlidingWindow Algorithm = "sliding_window"
	TokenBucket   Algorithm = "token_bucket"
)

// FailureMode is what a hit answers when Redis cannot (policy field on_error, or the caller's).
type FailureMode string

const (
	Report    FailureMode = "report"    // return ErrUnavailable: the caller decides (the default)
	Allow     FailureMode = "allow"     // allow the hit
	Deny      FailureMode = "deny"      // deny it
	Insurance FailureMode = "insurance" // an in-process limiter decides (InsuranceLimiter)
)

// Window is one limit of a policy: at most Limit units per Window.
type Window struct {
	Limit  int64
	Window time.Duration // whole milliseconds
}

// Policy is how one action is limited: the hash <prefix>:policy:<action> (lua/README.md, "The
// policy hash"), read from Redis by the Limiter or given inline (Options.Policies).
type Policy struct {
	Action       string
	Algorithm    Algorithm // default FixedWindow
	Windows      []Window  // 1..8, all-or-nothing
	Cost         int64     // default cost of a hit; 0 = 1
	Warn         int64     // tier "warn" above this count of the first window; 0 = none
	Ban          time.Duration
	BanUntil     string // "midnight": ban until the next local midnight
	Calendar     bool   // fixed windows of 1m/1h/1d/1w aligned to local time
	TimeZone     string // IANA zone for midnight and calendar windows; "" = UTC
	TZOffsets    string // the zone's offsets as saved (field tz_offsets), for a zone Go lacks
	CountDenied  bool
	Shadow       bool // decided and counted, never denied nor banned (field shadow)
	Message      string
	OnError      FailureMode // "" or Report: return ErrUnavailable
	Revision     int64
	UpdatedBy    string
	UpdatedMs    int64
	fixedOffsetS *int // tz_offset_ms of a policy saved before zones had names
}

const (
	maxLimit           = 1_000_000_000
	maxSlidingLogLimit = 100_000
	maxWindows         = 8
	msPerDay           = 86_400_000
	msPerYear          = 365 * msPerDay
)

// ParsePolicy reads a policy hash's fields (HGETALL) as the C++ Policy::fromFields does: unknown
// fields are ignored, a malformed known field is ErrBadPolicy, a contract this client does not
// speak ErrContract. The result is validated.
func ParsePolicy(action string, fields map[string]string) (Policy, error) {
	p := Policy{Action: action, Algorithm: FixedWindow, Cost: 1}
	bad := func(format string, args ...interface{}) (Policy, error) {
		return Policy{}, &Error{Kind: ErrBadPolicy, Action: action, Message: fmt.Sprintf(format, args...)}
	}
	number := func(field string) (int64, error) {
		n, err := strconv.ParseInt(fields[field], 10, 64)
		if err != nil {
			return 0, &Error{Kind: ErrBadPolicy, Action: action,
				Message: fmt.Sprintf("policy field '%s' is not an integer: '%.40s'", field, fields[field])}
		}
		return n, nil
	}
	if v, ok := fields["contract"]; ok {
		// The policy layout is the same since contract 1: any contract up to ours reads.
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > ScriptContract {
			return Policy{}, &Error{Kind: ErrContract, Action: action, Message: fmt.Sprintf(
				"it was written under script contract %.20s, and this client follows contract %d: upgrade it to read it (lua/README.md, \"Contract version\")",
				v, ScriptContract)}
		}
	}
	for field, value := range fields {
		var err error
		switch field {
		case "algorithm":
			switch value {
			case "fixed_window", "sliding_log", "sliding_window", "token_bucket":
				p.Algorithm = Algorithm(value)
			case "gcra":
				p.Algorithm = TokenBucket
			default:
				return bad("unknown algorithm '%s'", value)
			}
		case "windows":
			for _, pair := range strings.Split(value, ",") {
				parts := strings.Split(pair, ":")
				if len(parts) != 2 {
					return bad("malformed windows field")
				}
				ms, err1 := strconv.ParseInt(parts[0], 10, 64)
				limit, err2 := strconv.ParseInt(parts[1], 10, 64)
				if err1 != nil || err2 != nil {
					return bad("malformed windows field")
				}
				p.Windows = append(p.Windows, Window{Limit: limit, Window: time.Duration(ms) * time.Millisecond})
			}
		case "message":
			p.Message = value
		case "on_error":
			switch FailureMode(value) {
			case "":
				p.OnError = Report
			case Allow, Deny, Insurance:
				p.OnError = FailureMode(value)
			default:
				return bad("unknown on_error '%.40s' (allow, deny or insurance)", value)
			}
		case "ban_until":
			if value == "midnight" {
				p.BanUntil = "midnight"
			}
		case "align":
			if value != "first_hit" && value != "calendar" {
				return bad("unknown align '%.40s'", value)
			}
			p.Calendar = value == "calendar"
		case "tz":
			p.TimeZone = value
		case "tz_offsets":
			p.TZOffsets = value
		case "tz_offset_ms":
			var ms int64
			if _, named := fields["tz"]; named {
				break // tz wins over the old fixed offset
			}
			if ms, err = number(field); err == nil {
				s := int(ms / 1000)
				p.fixedOffsetS = &s
			}
		case "updated_by":
			p.UpdatedBy = value
		case "count_denied":
			p.CountDenied = value == "1"
		case "shadow":
			p.Shadow = value == "1"
		case "cost":
			p.Cost, err = number(field)
		case "warn":
			p.Warn, err = number(field)
		case "ban_ms":
			var ms int64
			ms, err = number(field)
			p.Ban = time.Duration(ms) * time.Millisecond
		case "revision":
			p.Revision, err = number(field)
		case "updated_ms":
			p.UpdatedMs, err = number(field)
		}
		if err != nil {
			return Policy{}, err
		}
	}
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	return p, nil
}

// Validate checks every rule hit.lua and the C++ Policy::validate check, with a message naming
// the field: ErrBadPolicy.
func (p *Policy) Validate() error {
	bad := func(format string, args ...interface{}) error {
		return &Error{Kind: ErrBadPolicy, Action: p.Action, Message: fmt.Sprintf(format, args...)}
	}
	if err := validateID(p.Action, "action"); err != nil {
		return err
	}
	if p.Algorithm == "" {
		p.Algorithm = FixedWindow
	}
	if p.Cost == 0 {
		p.Cost = 1
	}
	if len(p.Windows) == 0 {
		return bad("a policy needs at least one limit and window")
	}
	if len(p.Windows) > maxWindows {
		return bad("at most %d windows per policy", maxWindows)
	}
	if p.Calendar && p.Algorithm != FixedWindow {
		return bad("calendar windows need fixed_window")
	}
	seen := map[int64]bool{}
	for _, w := range p.Windows {
		ms := w.Window.Milliseconds()
		if w.Limit < 1 || w.Limit > maxLimit {
			return bad("limit must be between 1 and %d, got %d", maxLimit, w.Limit)
		}
		if ms < 1 || ms > msPerYear || w.Window%time.Millisecond != 0 {
			return bad("window must be whole milliseconds between 1ms and 1 year, got %v", w.Window)
		}
		if p.Calendar && ms != 60_000 && ms != 3_600_000 && ms != msPerDay && ms != 7*msPerDay {
			return bad("calendar windows are 1m, 1h, 1d or 1w, got %s", formatDuration(ms))
		}
		if seen[ms] {
			return bad("window %s appears twice", formatDuration(ms))
		}
		seen[ms] = true
		if p.Algorithm == TokenBucket && w.Limit > ms*1000 {
			return bad("token_bucket refills at most one token per microsecond: limit at most %d for a %s window", ms*1000, formatDuration(ms))
		}
		if p.Algorithm == SlidingLog && w.Limit > maxSlidingLogLimit {
			return bad("sliding_log keeps one entry per hit: limit at most %d", maxSlidingLogLimit)
		}
	}
	if p.Cost < 1 || p.Cost > maxLimit {
		return bad("cost must be between 1 and %d, got %d", maxLimit, p.Cost)
	}
	if first := p.Windows[0].Limit; p.Warn < 0 || (p.Warn > 0 && p.Warn >= first) {
		return bad("warn level must be below the limit of the first window (%d), got %d", first, p.Warn)
	}
	if p.Ban < 0 || p.Ban > 10*msPerYear*time.Millisecond {
		return bad("ban duration must be between 0 and 10 years")
	}
	if p.Ban > 0 && p.BanUntil == "midnight" {
		return bad("choose a ban duration or 'until midnight', not both")
	}
	if _, err := p.zone(); err != nil {
		return err
	}
	if len([]rune(p.Message)) > 1000 {
		return bad("deny message is longer than 1000 characters")
	}
	switch p.Algorithm {
	case FixedWindow, SlidingLog, SlidingWindow, TokenBucket:
	default:
		return bad("unknown algorithm '%s'", p.Algorithm)
	}
	return nil
}

func (p *Policy) hasBan() bool         { return p.Ban > 0 || p.BanUntil == "midnight" }
func (p *Policy) needsLocalTime() bool { return p.BanUntil == "midnight" || p.Calendar }

// shortForm: hit.lua's short form leaves out what only a ban, a warn level, a counted denial or
// local time needs; the server pays for every argument on every hit.
func (p *Policy) shortForm() bool {
	return !p.CountDenied && p.Warn == 0 && !p.hasBan() && !p.Calendar
}
