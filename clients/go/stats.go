package tollgate

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// hitStats adds the outcomes of hits up per action and writes them with stats.lua's "counts"
// form at most once a second, in the middle of a second, as the C++ HitStats does: the
// console's Dashboard and the metrics exporter read them, and one call per hit would double the
// server's work (lua/README.md, stats.lua).
type hitStats struct {
	limiter *Limiter
	mu      sync.Mutex
	pending map[string]*statCounts
	armed   bool
	closed  bool
}

type statCounts struct{ hits, cost, warn, denied, banned, autoBans, wouldDeny, wouldBan int64 }

var statsScript = loadScript("stats")

func (s *hitStats) record(p *Policy, d *Decision, cost int64) {
	if cost <= 0 {
		cost = p.Cost
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	c := s.pending[p.Action]
	if c == nil {
		c = &statCounts{}
		s.pending[p.Action] = c
	}
	c.hits++
	c.cost += cost
	if d.Tier == TierWarn {
		c.warn++
	}
	denied := d.Tier == TierDeny || d.Tier == TierBanned
	autoBan := denied && d.Tier == TierDeny && p.hasBan() // hit.lua bans on every deny of a policy that bans
	switch {
	case d.Shadow && denied:
		c.wouldDeny++
		if autoBan {
			c.wouldBan++
		}
	case denied:
		c.denied++
		if d.Tier == TierBanned {
			c.banned++
		} else if autoBan {
			c.autoBans++
		}
	}
	if !s.armed {
		// The first outcome after a write arms the next, in the middle of the next second.
		s.armed = true
		time.AfterFunc(untilMidSecond(time.Now()), s.flush)
	}
}

func untilMidSecond(now time.Time) time.Duration {
	wait := (500 - now.UnixMilli()%1000 + 1000) % 1000
	if wait == 0 {
		wait = 1000
	}
	return time.Duration(wait) * time.Millisecond
}

// flush writes what was added up; a write that fails loses those seconds' figures, nothing else.
func (s *hitStats) flush() {
	s.mu.Lock()
	pending := s.pending
	s.pending, s.armed = map[string]*statCounts{}, false
	s.mu.Unlock()
	for action, c := range pending {
		ctx, cancel := context.WithTimeout(context.Background(), s.limiter.opts.Timeout)
		n := func(v int64) interface{} { return strconv.FormatInt(v, 10) }
		_, _ = statsScript.call(ctx, s.limiter.client, false, []string{s.limiter.keys.prefix + ":stats:" + EscapeID(action)},
			"counts", n(c.hits), n(c.cost), n(c.warn), n(c.denied), n(c.banned), n(c.autoBans), "0", n(c.wouldDeny), n(c.wouldBan))
		cancel()
	}
}

// close writes what is pending and stops recording.
func (s *hitStats) close() {
	s.flush()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}
