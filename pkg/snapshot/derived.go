package snapshot

import "sync"

// derived holds what pkg/model computes once from a snapshot (indexes, revision views, each
// proxy's predicted config). It belongs to the snapshot it was made for: a shallow copy of a
// Snapshot (a revision view) gets its own.
type derived struct {
	owner *Snapshot
	mu    sync.Mutex
	m     map[any]*derivedValue
}

// derivedValue is one value, built by the first caller; the others wait for it (done).
type derivedValue struct {
	done chan struct{}
	v    any
	ok   bool // false when build panicked: a waiter builds it itself
}

var derivedInit sync.Mutex

// Derived returns the value stored under key for this snapshot, building it with build on first
// use. Checks are pure functions of a snapshot, so anything computed from it may be kept for
// the snapshot's lifetime; a snapshot must therefore not be changed once a check has read it.
// build must not call Derived with the same key. Safe for concurrent use: concurrent callers
// of one key wait for the first one's build instead of building it again.
func (s *Snapshot) Derived(key any, build func() any) any {
	derivedInit.Lock()
	d := s.derived
	if d == nil || d.owner != s {
		d = &derived{owner: s, m: map[any]*derivedValue{}}
		s.derived = d
	}
	derivedInit.Unlock()
	d.mu.Lock()
	e, ok := d.m[key]
	if !ok {
		e = &derivedValue{done: make(chan struct{})}
		d.m[key] = e
	}
	d.mu.Unlock()
	if ok {
		<-e.done
		if e.ok {
			return e.v
		}
		return build()
	}
	defer close(e.done)
	e.v = build()
	e.ok = true
	return e.v
}
