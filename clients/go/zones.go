package tollgate

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

var utcOffsetName = regexp.MustCompile(`^UTC([+-])(\d\d):(\d\d)$`)

// zone is the policy's time zone, or nil when Go's zone database lacks it and the policy's
// saved tz_offsets stand in (lua/README.md, "Time zones"). ErrBadPolicy for an unknown zone
// without saved offsets.
func (p *Policy) zone() (*time.Location, error) {
	if p.fixedOffsetS != nil {
		return time.FixedZone("", *p.fixedOffsetS), nil
	}
	switch p.TimeZone {
	case "", "UTC":
		return time.UTC, nil
	}
	if m := utcOffsetName.FindStringSubmatch(p.TimeZone); m != nil {
		h, _ := strconv.Atoi(m[2])
		min, _ := strconv.Atoi(m[3])
		seconds := h*3600 + min*60
		if m[1] == "-" {
			seconds = -seconds
		}
		return time.FixedZone(p.TimeZone, seconds), nil
	}
	if loc, err := time.LoadLocation(p.TimeZone); err == nil && !strings.HasPrefix(p.TimeZone, "Local") {
		return loc, nil
	}
	if p.TZOffsets != "" {
		return nil, nil
	}
	return nil, &Error{Kind: ErrBadPolicy, Action: p.Action,
		Message: "unknown time zone '" + p.TimeZone + "' (use an IANA name such as Europe/Berlin)"}
}

// offsets is hit.lua's ARGV[8]: "0" when the policy needs no local time, else the zone's UTC
// offsets from 2 days back to 40 days ahead (cached per zone and day), or the saved tz_offsets.
func (p *Policy) offsets(now time.Time) (string, error) {
	if !p.needsLocalTime() {
		return "0", nil
	}
	loc, err := p.zone()
	if err != nil {
		return "", err
	}
	if loc == nil {
		return p.TZOffsets, nil
	}
	return zoneOffsetsAround(loc, now), nil
}

var offsetCache struct {
	sync.Mutex
	entries map[*time.Location]cachedOffsets
}

type cachedOffsets struct {
	day  int64
	text string
}

func zoneOffsetsAround(loc *time.Location, now time.Time) string {
	day := now.UnixMilli() / msPerDay
	offsetCache.Lock()
	defer offsetCache.Unlock()
	if e, ok := offsetCache.entries[loc]; ok && e.day == day {
		return e.text
	}
	text := zoneOffsets(loc, now.Add(-48*time.Hour), now.Add(40*24*time.Hour))
	if offsetCache.entries == nil || len(offsetCache.entries) > 1000 {
		offsetCache.entries = map[*time.Location]cachedOffsets{}
	}
	offsetCache.entries[loc] = cachedOffsets{day, text}
	return text
}

// zoneOffsets writes "<offset_ms>[,<utc_ms>:<offset_ms>...]": the offset at from, then each
// change up to to. Go has no list of transitions: the offset is sampled every 6 hours (no zone
// changes twice in that time) and each change found to the second.
func zoneOffsets(loc *time.Location, from, to time.Time) string {
	offsetAt := func(unix int64) int { _, o := time.Unix(unix, 0).In(loc).Zone(); return o }
	start, end := from.Unix(), to.Unix()
	current := offsetAt(start)
	text := strconv.FormatInt(int64(current)*1000, 10)
	const step = 6 * 3600
	for t := start; t < end; t += step {
		next := t + step
		if next > end {
			next = end
		}
		if offsetAt(next) == current {
			continue
		}
		lo, hi := t, next // offsetAt(lo) == current, offsetAt(hi) != current
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if offsetAt(mid) == current {
				lo = mid
			} else {
				hi = mid
			}
		}
		current = offsetAt(hi)
		text += "," + strconv.FormatInt(hi*1000, 10) + ":" + strconv.FormatInt(int64(current)*1000, 10)
	}
	return text
}
