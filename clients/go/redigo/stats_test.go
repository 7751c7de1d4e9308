package redigo_test

import (
	"testing"

	"github.com/gomodule/redigo/redis"
	"tollgate.dev/tollgate"
)

// With RecordStats the outcomes reach stats.lua's totals, which the console and the exporter
// read, written once a second (here by Close).
func TestStatisticsForTheConsole(t *testing.T) {
	l := fresh(t, tollgate.Options{RecordStats: true})
	savePolicy(t, l, "comment", map[string]string{"windows": "60000:2", "ban_ms": "60000"})
	for _, want := range []tollgate.Tier{tollgate.TierOK, tollgate.TierOK, tollgate.TierDeny, tollgate.TierBanned} {
		if d := hit(t, l, "comment", "42"); d.Tier != want {
			t.Fatalf("tier %s, want %s", d.Tier, want)
		}
	}
	l.Close()
	totals, err := redis.Int64s(server.Do("HMGET", "tg:stats:comment", "total:h", "total:c", "total:d", "total:b", "total:ab"))
	if err != nil || totals[0] != 4 || totals[1] != 4 || totals[2] != 2 || totals[3] != 1 || totals[4] != 1 {
		t.Fatalf("totals hits, cost, denied, banned, automatic bans: %v %v", totals, err)
	}
}
