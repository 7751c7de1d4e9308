package tollgate

import (
	"math"
	"strconv"
	"sync"
	"time"
)

// InsuranceLimiter stands in for Redis while it cannot answer (FailureMode Insurance), as the
// C++ InsuranceLimiter does: a fixed window per user, action and window of the policy, started
// by the first hit, with the policy's limits scaled by factor (1/N with N application
// instances, since each counts only its own hits). All windows are all-or-nothing, as in
// hit.lua. It never bans and never writes to Redis. Safe for concurrent use; at most
// maxWindows windows are kept (the ended ones are swept first, then every window starts over).
type InsuranceLimiter struct {
	factor     float64
	maxWindows int
	mu         sync.Mutex
	windows    map[string]insuranceWindow
	start      time.Time // monotonic: a wall-clock jump must not reopen or freeze a window
}

type insuranceWindow struct{ startMs, windowMs, count int64 }

// NewInsuranceLimiter: factor <= 0 means 1, maxWindows <= 0 means 100,000.
func NewInsuranceLimiter(factor float64, maxWindows int) *InsuranceLimiter {
	if factor <= 0 {
		factor = 1
	}
	if maxWindows <= 0 {
		maxWindows = 100_000
	}
	return &InsuranceLimiter{factor: factor, maxWindows: maxWindows, windows: map[string]insuranceWindow{}, start: time.Now()}
}

func (in *InsuranceLimiter) makeRoom(nowMs int64) {
	if len(in.windows) < in.maxWindows {
		return
	}
	for k, w := range in.windows {
		if nowMs-w.startMs >= w.windowMs {
			delete(in.windows, k)
		}
	}
	if len(in.windows) >= in.maxWindows {
		in.windows = map[string]insuranceWindow{}
	}
}

// hit counts (or with count false only weighs) a hit of cost units (PolicyCost: the policy's).
func (in *InsuranceLimiter) hit(p *Policy, user string, cost int64, count bool) Decision {
	units := cost
	if units <= 0 {
		units = p.Cost
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	nowMs := time.Since(in.start).Milliseconds()
	in.makeRoom(nowMs)

	type evaluated struct {
		key    string
		window insuranceWindow
		limit  int64
		fits   bool
	}
	windows := make([]evaluated, 0, len(p.Windows))
	allFit := true
	for _, w := range p.Windows {
		ms := w.Window.Milliseconds()
		// \x00 ends no escaped id: no two (action, user, window) share a key.
		key := p.Action + "\x00" + user + "\x00" + strconv.FormatInt(ms, 10)
		state, ok := in.windows[key]
		if !ok || nowMs-state.startMs >= ms {
			state = insuranceWindow{startMs: nowMs, windowMs: ms}
		}
		limit := int64(math.Floor(float64(w.Limit) * in.factor))
		if limit < 1 {
			limit = 1
		}
		fits := state.count+units <= limit
		allFit = allFit && fits
		windows = append(windows, evaluated{key, state, limit, fits})
	}
	d := Decision{Allowed: allFit, Tier: TierOK}
	if !allFit {
		d.Tier = TierDeny
	}
	var binding *evaluated
	for i := range windows {
		e := &windows[i]
		if allFit && count {
			e.window.count += units
			in.windows[e.key] = e.window
		}
		var resetMs int64
		if e.window.count > 0 {
			resetMs = e.window.startMs + e.window.windowMs - nowMs
		}
		// Denied: the denying window that frees up last; allowed: the one with least room.
		better := binding == nil
		if !better && allFit {
			better = e.limit-e.window.count < binding.limit-binding.window.count
		} else if !better {
			better = (!e.fits && binding.fits) || (e.fits == binding.fits && resetMs > d.Reset.Milliseconds())
		}
		if better {
			binding = e
			d.Count, d.Limit = e.window.count, e.limit
			d.Remaining = e.limit - e.window.count
			if d.Remaining < 0 {
				d.Remaining = 0
			}
			d.Reset = time.Duration(resetMs) * time.Millisecond
		}
	}
	if !allFit {
		switch {
		case units > d.Limit:
			d.RetryAfter = Never
		case d.Reset < time.Millisecond:
			d.RetryAfter = time.Millisecond
		default:
			d.RetryAfter = d.Reset
		}
	}
	return d
}
