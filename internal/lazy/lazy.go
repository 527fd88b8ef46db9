// Package lazy holds values computed per key on first use and kept: the memo the model's
// indexes and a predicted proxy config share (a push context's caches, built once, read by
// many goroutines).
package lazy

import "sync"

// Map computes a value per key on first use and keeps it. Safe for concurrent use; build runs
// outside the lock, so two goroutines may build the same key once each, and the first value
// stored wins.
type Map[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	build func(K) V
}

// New returns a Map that computes missing values with build.
func New[K comparable, V any](build func(K) V) *Map[K, V] {
	return &Map[K, V]{m: map[K]V{}, build: build}
}

// Get returns the value for k, building it on first use.
func (l *Map[K, V]) Get(k K) V {
	l.mu.Lock()
	v, ok := l.m[k]
	l.mu.Unlock()
	if ok {
		return v
	}
	v = l.build(k)
	l.mu.Lock()
	if old, ok := l.m[k]; ok {
		v = old
	} else {
		l.m[k] = v
	}
	l.mu.Unlock()
	return v
}
