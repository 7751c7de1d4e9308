package tollgate

import "strconv"

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
	hitMode       string // "hit", or "shadow" for a shadow policy
	policyCost    string
	rules         []interface{} // count_denied, warn, ban_ms, ban_until
	tail          []interface{} // full form: action, channel, align, pairs; short: the pairs
}

func prepare(p *Policy, keys keySchema, forOverride bool) *prepared {
	escAction := EscapeID(p.Action)
	pr := &prepared{policy: p, short: p.shortForm(), forOverride: forOverride,
		actionBan: ":" + escAction + ":ban", hitMode: "hit", policyCost: strconv.FormatInt(p.Cost, 10)}
	if p.Shadow {
		pr.hitMode = "shadow"
	}
	for _, w := range p.Windows {
		pr.stateSuffixes = append(pr.stateSuffixes,
			":"+escAction+":"+algorithmCode(p.Algorithm)+":"+strconv.FormatInt(w.Window.Milliseconds(), 10))
	}
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
	return pr
}

// command is the EVALSHA (hit, shadow) or EVALSHA_RO (peek) of one hit. cost 0: the policy's.
func (pr *prepared) command(keys keySchema, peek bool, user string, cost int64, offsets string) []interface{} {
	n := len(pr.stateSuffixes)
	size := 3 + 3 + n + 3 + len(pr.tail)
	if !pr.short {
		size += 2 + 4 + 2
	}
	cmd := make([]interface{}, 0, size)
	if peek {
		cmd = append(cmd, "EVALSHA_RO", hitScript.sha)
	} else {
		cmd = append(cmd, "EVALSHA", hitScript.sha)
	}
	keyCount := 3 + n
	if !pr.short {
		keyCount += 2
	}
	base := keys.userBase(EscapeID(user))
	cmd = append(cmd, strconv.Itoa(keyCount), base+":ban", base+pr.actionBan, base+":overrides")
	if !pr.short {
		audit := base + ":audit"
		cmd = append(cmd, audit, keys.auditMirror(audit))
	}
	for _, suffix := range pr.stateSuffixes {
		cmd = append(cmd, base+suffix)
	}
	mode := pr.hitMode
	if peek {
		mode = "peek"
	}
	cmd = append(cmd, mode, string(pr.policy.Algorithm))
	if cost > 0 {
		cmd = append(cmd, strconv.FormatInt(cost, 10))
	} else {
		cmd = append(cmd, pr.policyCost)
	}
	if !pr.short {
		cmd = append(cmd, pr.rules...)
		cmd = append(cmd, offsets, user)
	}
	return append(cmd, pr.tail...)
}
