package tollgate

import (
	"sync"
	"sync/atomic"
)

// overrideTargets remembers, per user and action, the override windows hit.lua last redirected
// the user to, so their next hits go there at once (the script checks them again; a stale entry
// costs one redirect). Bounded: cleared when full.
type overrideTargets struct {
	size    atomic.Int64 // read without the lock: most users were never redirected
	mu      sync.Mutex
	entries map[overrideTargetKey]*prepared
	bases   map[overrideTargetKey]*prepared
}

type overrideTargetKey struct{ action, user string }

const maxOverrideTargets = 4096

func (t *overrideTargets) find(base *prepared, user string) *prepared {
	if t.size.Load() == 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	k := overrideTargetKey{base.policy.Action, user}
	if t.bases[k] != base { // prepared for another revision of the policy
		return nil
	}
	return t.entries[k]
}

func (t *overrideTargets) remember(base *prepared, user string, target *prepared) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.entries == nil || len(t.entries) >= maxOverrideTargets {
		t.entries, t.bases = map[overrideTargetKey]*prepared{}, map[overrideTargetKey]*prepared{}
	}
	k := overrideTargetKey{base.policy.Action, user}
	t.entries[k], t.bases[k] = target, base
	t.size.Store(int64(len(t.entries)))
}

func (t *overrideTargets) forget(base *prepared, user string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := overrideTargetKey{base.policy.Action, user}
	delete(t.entries, k)
	delete(t.bases, k)
	t.size.Store(int64(len(t.entries)))
}
