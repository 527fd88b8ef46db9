package model

import "sync"

// lazyMap computes a value per key on first use and keeps it.
type lazyMap[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	build func(K) V
}

func newLazyMap[K comparable, V any](build func(K) V) *lazyMap[K, V] {
	return &lazyMap[K, V]{m: map[K]V{}, build: build}
}

func (l *lazyMap[K, V]) get(k K) V {
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
