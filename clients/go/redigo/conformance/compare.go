package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"tollgate.dev/tollgate/redigo/redistest"
)

// compare checks every expected field against what the step answered (got), in a stable order.
// An expected "error" is compared alone; an error nobody expected fails the step.
func compare(expect map[string]json.RawMessage, got map[string]interface{}, err error) error {
	if want, ok := expect["error"]; ok {
		var kind string
		if json.Unmarshal(want, &kind) != nil {
			return fmt.Errorf("error expected %s: not a string", want)
		}
		if err == nil {
			return fmt.Errorf("error expected %s got none", kind)
		}
		if got["error"] != kind {
			return fmt.Errorf("error expected %s got %v: %v", kind, got["error"], err)
		}
		if w, ok := expect["elapsed_ms"]; ok {
			return compareField("elapsed_ms", w, got)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("error expected none got %v: %v", got["error"], err)
	}
	names := make([]string, 0, len(expect))
	for name := range expect {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := compareField(name, expect[name], got); err != nil {
			return err
		}
	}
	return nil
}

func compareField(name string, want json.RawMessage, got map[string]interface{}) error {
	have, known := got[name]
	if !known {
		return fmt.Errorf("%s expected %s: this step has no such field", name, want)
	}
	mismatch := func() error { return fmt.Errorf("%s expected %s got %s", name, want, show(have)) }
	var w interface{}
	if err := json.Unmarshal(want, &w); err != nil {
		return err
	}
	switch w := w.(type) {
	case nil:
		if have != nil && have != "" {
			return mismatch()
		}
	case bool:
		if b, ok := have.(bool); !ok || b != w {
			return mismatch()
		}
	case string:
		if s, ok := have.(string); !ok || s != w {
			return mismatch()
		}
	case float64:
		if n, ok := have.(int64); !ok || float64(n) != w {
			return mismatch()
		}
	case []interface{}:
		lo, ok1 := w[0].(float64)
		hi, ok2 := w[len(w)-1].(float64)
		n, ok3 := have.(int64)
		if len(w) != 2 || !ok1 || !ok2 || !ok3 || float64(n) < lo || float64(n) > hi {
			return mismatch()
		}
	case map[string]interface{}:
		period, ok1 := w["until_boundary"].(float64)
		offset, ok2 := w["utc_offset_ms"].(float64)
		n, ok3 := have.(int64)
		if !ok1 || !ok2 || !ok3 || period <= 0 || !nearBoundary(n, int64(period), int64(offset)) {
			return mismatch()
		}
	default:
		return fmt.Errorf("%s expected %s: cannot compare", name, want)
	}
	return nil
}

// boundaryToleranceMs: how far from the next local boundary a duration may be (the step's own
// time, the clock between the call and the check).
const boundaryToleranceMs = 2000

// nearBoundary: {"until_boundary": P, "utc_offset_ms": O} is the ms until the next instant t
// with (t + O) % P == 0, a window or ban that ends at the local minute, day or week; compared
// around the circle of P, since the boundary may pass between the call and the check.
func nearBoundary(haveMs, period, offset int64) bool {
	now := time.Now().UnixMilli()
	expected := period - ((now+offset)%period+period)%period
	distance := ((haveMs-expected)%period + period) % period
	if period-distance < distance {
		distance = period - distance
	}
	return distance <= boundaryToleranceMs
}

func show(v interface{}) string {
	if v == nil {
		return "null"
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// keysWithoutTTL counts the keys under prefix that must expire and have no TTL: counters, bans
// with an end, overrides hashes without a permanent override (SCAN and PTTL from here, never
// from Lua).
func keysWithoutTTL(server *redistest.Server, prefix string) (int64, error) {
	var count int64
	cursor := "0"
	for {
		reply, err := redis.Values(server.Do("SCAN", cursor, "MATCH", prefix+":{*", "COUNT", "1000"))
		if err != nil {
			return 0, err
		}
		cursor, _ = redis.String(reply[0], nil)
		keys, _ := redis.Strings(reply[1], nil)
		for _, key := range keys {
			mustExpire, err := mustExpire(server, prefix, key)
			if err != nil {
				return 0, err
			}
			if !mustExpire {
				continue
			}
			if ttl, err := redis.Int64(server.Do("PTTL", key)); err == nil && ttl == -1 {
				count++
			}
		}
		if cursor == "0" {
			return count, nil
		}
	}
}

func mustExpire(server *redistest.Server, prefix, key string) (bool, error) {
	close := strings.IndexByte(key, '}')
	if !strings.HasPrefix(key, prefix+":{") || close < 0 || key[len(prefix)+2:close] == ":" {
		return false, nil // not a user's key (the cluster's "{:}" keys never expire)
	}
	rest := strings.Split(strings.TrimPrefix(key[close+1:], ":"), ":")
	switch {
	case len(rest) == 3 && len(rest[1]) == 2 && strings.Contains("fw sl sw tb", rest[1]):
		return true, nil
	case rest[len(rest)-1] == "ban" && len(rest) <= 2:
		until, err := redis.String(server.Do("HGET", key, "until_ms"))
		if err == redis.ErrNil {
			return false, nil
		}
		return until != "0", err
	case len(rest) == 1 && rest[0] == "overrides":
		values, err := redis.Strings(server.Do("HVALS", key))
		for _, v := range values {
			if fields := strings.Fields(v); len(fields) > 1 && fields[1] == "0" {
				return false, err // a permanent override keeps the hash
			}
		}
		return true, err
	}
	return false, nil
}
