package tollgate

import (
	"strconv"
	"strings"
)

// prepared is hit.lua's call for one policy with everything the policy fixes built once: the
// key suffixes, the mode, the rules and the limit/window pairs; a hit adds the user's keys, the
// cost and, for local time, the zone's offsets (lua/README.md, hit.lua). A policy that can never
// ban, warn or count a denial goes in the short form: no audit keys, no ids.
type prepared struct {
	policy        *Policy // the windows sent: the policy's, or a limit override's
	short         bool
	forOverride   bool // the call ends with hit.lua's marker "override"
	actionBan     string
	stateSuffixes []string
	hitMode       interface{} // "hit", or "shadow" for a shadow policy
	algorithm     interface{}
	policyCost    interface{}
	keyCount      interface{}
	globalAudit   interface{} // KEYS[5] on a single server
	size          int         // the command's length
	// The user keys' suffixes: ":ban", ":<action>:ban", ":overrides", then the full form's
	// ":audit" (twice on a cluster: no global mirror), then the state keys.
	suffixes, clusterSuffixes []string
	rules                     []interface{} // count_denied, warn, ban_ms, ban_until
	tail                      []interface{} // full form: action, channel, align, pairs; short: the pairs
}

func prepare(p *Policy, keys keySchema, forOverride bool) *prepared {
	escAction := EscapeID(p.Action)
	pr := &prepared{policy: p, short: p.shortForm(), forOverride: forOverride,
		actionBan: ":" + escAction + ":ban", hitMode: "hit", algorithm: string(p.Algorithm),
		policyCost: strconv.FormatInt(p.Cost, 10), globalAudit: keys.auditKey()}
	if p.Shadow {
		pr.hitMode = "shadow"
	}
	for _, w := range p.Windows {
		pr.stateSuffixes = append(pr.stateSuffixes,
			":"+escAction+":"+algorithmCode(p.Algorithm)+":"+strconv.FormatInt(w.Window.Milliseconds(), 10))
	}
	fixed := []string{":ban", pr.actionBan, ":overrides"}
	pr.suffixes = append(append([]string(nil), fixed...), pr.stateSuffixes...)
	keyCount := 3 + len(p.Windows)
	if !pr.short {
		keyCount += 2
		pr.suffixes = append(append(append([]string(nil), fixed...), ":audit"), pr.stateSuffixes...)
		pr.clusterSuffixes = append(append(append([]string(nil), fixed...), ":audit", ":audit"), pr.stateSuffixes...)
	}
	pr.keyCount = strconv.Itoa(keyCount)
	if !pr.short {
		countDenied := "0"
		if p.CountDenied {
			countDenied = "1"
		}
		align := "first_hit"
		if p.Calendar {
			align = "calendar"
		}
		pr.rules = []interface{}{countDenied, strconv.FormatInt(p.Warn, 10),
			strconv.FormatInt(p.Ban.Milliseconds(), 10), p.BanUntil}
		pr.tail = []interface{}{p.Action, keys.eventsChannel(), align}
	}
	for _, w := range p.Windows {
		pr.tail = append(pr.tail, strconv.FormatInt(w.Limit, 10), strconv.FormatInt(w.Window.Milliseconds(), 10))
	}
	if forOverride {
		pr.tail = append(pr.tail, "override")
	}
	pr.size = 3 + keyCount + 3 + len(pr.rules) + 2 + len(pr.tail)
	return pr
}

// command is the EVALSHA (hit, shadow) or EVALSHA_RO (peek) of one hit. cost 0: the policy's.
// Every hit pays for this: the user's keys are written into one string and sliced from it, and
// the constant arguments were boxed once, so a short-form hit allocates little beyond its keys.
func (pr *prepared) command(keys keySchema, peek bool, user string, cost int64, offsets string) []interface{} {
	cmd := make([]interface{}, 0, pr.size)
	if peek {
		cmd = append(cmd, "EVALSHA_RO", hitScript.shaArg)
	} else {
		cmd = append(cmd, "EVALSHA", hitScript.shaArg)
	}
	cmd = append(cmd, pr.keyCount)

	// "<p>:{<user>}" + suffix for each key, in one buffer.
	esc := EscapeID(user)
	base := len(keys.prefix) + 3 + len(esc)
	suffixes := pr.keySuffixes(keys)
	size := 0
	for _, suffix := range suffixes {
		size += base + len(suffix)
	}
	var buf strings.Builder // one allocation, no copy to make it a string
	buf.Grow(size)
	for _, suffix := range suffixes {
		buf.WriteString(keys.prefix)
		buf.WriteString(":{")
		buf.WriteString(esc)
		buf.WriteByte('}')
		buf.WriteString(suffix)
	}
	all := buf.String()
	at := 0
	for i, suffix := range suffixes {
		end := at + base + len(suffix)
		if !pr.short && i == 4 && !keys.cluster {
			cmd = append(cmd, pr.globalAudit) // KEYS[5]: <p>:audit, the same for every user
		}
		cmd = append(cmd, all[at:end])
		at = end
	}

	if peek {
		cmd = append(cmd, "peek", pr.algorithm)
	} else {
		cmd = append(cmd, pr.hitMode, pr.algorithm)
	}
	if cost > 0 {
		cmd = append(cmd, decimal(cost))
	} else {
		cmd = append(cmd, pr.policyCost)
	}
	if !pr.short {
		cmd = append(cmd, pr.rules...)
		cmd = append(cmd, offsets, user)
	}
	return append(cmd, pr.tail...)
}

// keySuffixes: what follows "<p>:{<user>}" in each of the call's user keys, in KEYS order
// (the global audit stream of a single server is no user key: command adds it).
func (pr *prepared) keySuffixes(keys keySchema) []string {
	if pr.short {
		return pr.suffixes
	}
	if keys.cluster {
		return pr.clusterSuffixes
	}
	return pr.suffixes
}

// boxedDecimals: the costs most hits carry, already strings in interfaces.
var boxedDecimals = func() (t [1025]interface{}) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

func decimal(n int64) interface{} {
	if n >= 0 && n < int64(len(boxedDecimals)) {
		return boxedDecimals[n]
	}
	return strconv.FormatInt(n, 10)
}
