package snapshot

import "sync"

// derived holds what pkg/model computes once from a snapshot (indexes, revision views, each
// proxy's predicted config). It belongs to the snapshot it was made for: a shallow copy of a
// Snapshot (a revision view) gets its own.
type derived struct {
	owner *Snapshot
	mu    sync.Mutex
	m     map[any]any
}

var derivedInit sync.Mutex

// Derived returns the value stored under key for this snapshot, building it with build on first
// use. Checks are pure functions of a snapshot, so anything computed from it may be kept for
// the snapshot's lifetime; a snapshot must therefore not be changed once a check has read it.
// build must not call Derived with the same key. Safe for concurrent use.
func (s *Snapshot) Derived(key any, build func() any) any {
	derivedInit.Lock()
	d := s.derived
	if d == nil || d.owner != s {
		d = &derived{owner: s, m: map[any]any{}}
		s.derived = d
	}
	derivedInit.Unlock()
	d.mu.Lock()
	v, ok := d.m[key]
	d.mu.Unlock()
	if ok {
		return v
	}
	v = build()
	d.mu.Lock()
	if old, ok := d.m[key]; ok {
		v = old
	} else {
		d.m[key] = v
	}
	d.mu.Unlock()
	return v
}
