package tollgate

import (
	"strconv"
	"strings"
	"time"
)

// windowsText is the windows as policy_set.lua stores them: "60000:10,3600000:100".
func windowsText(windows []Window) string {
	parts := make([]string, len(windows))
	for i, w := range windows {
		parts[i] = strconv.FormatInt(w.Window.Milliseconds(), 10) + ":" + strconv.FormatInt(w.Limit, 10)
	}
	return strings.Join(parts, ",")
}

// parseOverrideWindows reads TG_OVERRIDE's "<window_ms>:<limit>,...".
func parseOverrideWindows(text string) ([]Window, error) {
	var windows []Window
	for _, pair := range strings.Split(text, ",") {
		ms, limit, ok := strings.Cut(pair, ":")
		m, err1 := strconv.ParseInt(ms, 10, 64)
		l, err2 := strconv.ParseInt(limit, 10, 64)
		if !ok || err1 != nil || err2 != nil || m < 1 || l < 1 {
			return nil, newError(ErrReply, "override windows '%.200s' are not <window_ms>:<limit>,...", text)
		}
		windows = append(windows, Window{Limit: l, Window: time.Duration(m) * time.Millisecond})
	}
	if len(windows) > maxWindows {
		return nil, newError(ErrReply, "override windows '%.200s' are more than %d", text, maxWindows)
	}
	return windows, nil
}

// withOverrideWindows is the policy with a limit override's windows; a limit past what the
// algorithm holds counts as that maximum, as hit.lua takes it.
func withOverrideWindows(p Policy, windows []Window) Policy {
	with := p
	with.Windows = append([]Window(nil), windows...)
	for i := range with.Windows {
		w := &with.Windows[i]
		if with.Algorithm == SlidingLog && w.Limit > maxSlidingLogLimit {
			w.Limit = maxSlidingLogLimit
		}
		if ms := w.Window.Milliseconds(); with.Algorithm == TokenBucket && w.Limit > ms*1000 {
			w.Limit = ms * 1000
		}
	}
	if with.Calendar && with.Validate() != nil {
		with.Calendar = false
	}
	return with
}

// formatDuration writes a window as the C++ formatDuration does: "1m", "1h30m", "1500ms".
func formatDuration(ms int64) string {
	if ms <= 0 {
		return "0s"
	}
	if ms%1000 != 0 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	units := []struct {
		suffix string
		ms     int64
	}{{"w", 7 * msPerDay}, {"d", msPerDay}, {"h", 3_600_000}, {"m", 60_000}, {"s", 1000}}
	var b strings.Builder
	for _, u := range units {
		if ms >= u.ms {
			b.WriteString(strconv.FormatInt(ms/u.ms, 10) + u.suffix)
			ms %= u.ms
		}
	}
	return b.String()
}

// ParseWindows reads windows written "<window_ms>:<limit>,..." (the policy hash's windows
// field, an override's): ErrInvalid when malformed.
func ParseWindows(text string) ([]Window, error) {
	windows, err := parseOverrideWindows(text)
	if err != nil {
		return nil, &Error{Kind: ErrInvalid, Message: err.(*Error).Message}
	}
	return windows, nil
}
