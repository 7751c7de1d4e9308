package tollgate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParsePolicy(t *testing.T) {
	p, err := ParsePolicy("comment", map[string]string{"algorithm": "gcra", "windows": "60000:10,3600000:100",
		"cost": "2", "warn": "5", "ban_ms": "1000", "message": "Slow down", "on_error": "insurance", "shadow": "1",
		"contract": "2", "revision": "7", "unknown": "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Algorithm != TokenBucket || len(p.Windows) != 2 || p.Windows[1] != w(100, 3_600_000) || p.Cost != 2 ||
		p.Warn != 5 || p.Ban != time.Second || p.Message != "Slow down" || p.OnError != Insurance || !p.Shadow ||
		p.Revision != 7 {
		t.Fatalf("parsed %+v", p)
	}
	if p, _ := ParsePolicy("x", map[string]string{"windows": "1000:1"}); p.OnError != "" || p.Algorithm != FixedWindow || p.Cost != 1 {
		t.Fatalf("defaults: %+v", p)
	}
}

func TestParsePolicyRefusals(t *testing.T) {
	for _, c := range []struct {
		fields map[string]string
		kind   error
		says   string
	}{
		{map[string]string{"algorithm": "leaky"}, ErrBadPolicy, "unknown algorithm"},
		{map[string]string{"windows": "10"}, ErrBadPolicy, "malformed windows"},
		{map[string]string{"windows": "1000:0"}, ErrBadPolicy, "limit must be between"},
		{map[string]string{"windows": "1000:5,1000:6"}, ErrBadPolicy, "appears twice"},
		{map[string]string{"windows": "1000:5", "warn": "5"}, ErrBadPolicy, "warn level"},
		{map[string]string{"windows": "1000:5", "cost": "x"}, ErrBadPolicy, "not an integer"},
		{map[string]string{"windows": "1000:5", "tz": "Mars/Olympus"}, ErrBadPolicy, "unknown time zone"},
		{map[string]string{"windows": "1000:5", "contract": "4"}, ErrContract, "contract 4"},
		{map[string]string{}, ErrBadPolicy, "at least one"},
	} {
		_, err := ParsePolicy("a", c.fields)
		var e *Error
		if !errors.Is(err, c.kind) || !errors.As(err, &e) || !strings.Contains(e.Message, c.says) || e.Action != "a" {
			t.Errorf("%v: got %v, want %v saying %q", c.fields, err, c.kind, c.says)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for ms, want := range map[int64]string{500: "500ms", 1500: "1500ms", 1000: "1s", 60_000: "1m",
		5_400_000: "1h30m", 86_400_000: "1d", 604_800_000: "1w", 694_861_000: "1w1d1h1m1s"} {
		if got := formatDuration(ms); got != want {
			t.Errorf("formatDuration(%d) = %s, want %s", ms, got, want)
		}
	}
}

func TestZoneOffsets(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	// lua/README.md's example: Europe/Berlin during 2026.
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	got := zoneOffsets(berlin, from, from.AddDate(1, 0, 0))
	if want := "3600000,1774746000000:7200000,1792890000000:3600000"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	p := Policy{Action: "x", Windows: []Window{w(1, 1000)}, TimeZone: "Mars/Olympus", TZOffsets: "7200000", BanUntil: "midnight"}
	if err := p.Validate(); err != nil {
		t.Fatal("saved offsets stand in for a zone Go lacks:", err)
	}
	if got, _ := p.offsets(time.Now()); got != "7200000" {
		t.Fatalf("offsets %s", got)
	}
}

func TestCostAndIDChecks(t *testing.T) {
	l, err := NewLimiter(nil, Options{Policies: []Policy{{Action: "a", Windows: []Window{w(1, 1000)}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, c := range []struct {
		user string
		cost int64
	}{{"", 1}, {strings.Repeat("x", 1025), 1}, {"u", 0}, {"u", -2}, {"u", 1_000_000_001}} {
		if _, err := l.Hit(context.Background(), "a", c.user, c.cost); !errors.Is(err, ErrInvalid) {
			t.Errorf("user %.10q cost %d: %v", c.user, c.cost, err)
		}
	}
}
