package client

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// sharedList is one short-lived copy of an account-wide list (instances or snapshots) shared by
// every caller of a Client: the first caller fetches, concurrent callers wait on that same fetch,
// and the copy is dropped after ttl or as soon as the Client sends a write (invalidate), so a
// refresh of N resources costs one list walk instead of N detail reads.
//
// The fetch runs on a context detached from the caller's cancellation (but keeping its values and
// bounded by fetchTimeout): a caller that gives up returns at once without failing the fetch for
// the others still waiting on it.
type sharedList[T any] struct {
	fetch        func(ctx context.Context) (map[int64]T, error)
	ttl          time.Duration
	fetchTimeout time.Duration
	now          func() time.Time

	mu       sync.Mutex
	items    map[int64]T // nil when there is no usable copy
	fetched  time.Time
	gen      uint64 // bumped by invalidate; a fetch started before it is not kept
	inflight *listFetch[T]
}

// listFetch is one fetch in progress; done is closed when items and err are set.
type listFetch[T any] struct {
	done  chan struct{}
	gen   uint64
	items map[int64]T
	err   error
}

func newSharedList[T any](ttl time.Duration, fetch func(ctx context.Context) (map[int64]T, error)) *sharedList[T] {
	return &sharedList[T]{fetch: fetch, ttl: ttl, fetchTimeout: 5 * time.Minute, now: time.Now}
}

// get returns the items by id, from the current copy when it is fresh, otherwise from a fetch
// (started here or joined). The map is shared: callers must not change it.
func (s *sharedList[T]) get(ctx context.Context) (map[int64]T, error) {
	return s.getWithin(ctx, s.ttl)
}

// getWithin is get with a copy no older than maxAge: waits poll the list more often than a
// refresh needs it.
func (s *sharedList[T]) getWithin(ctx context.Context, maxAge time.Duration) (map[int64]T, error) {
	s.mu.Lock()
	if s.items != nil && s.now().Sub(s.fetched) < maxAge {
		items := s.items
		s.mu.Unlock()
		return items, nil
	}
	call := s.inflight
	if call == nil {
		call = &listFetch[T]{done: make(chan struct{}), gen: s.gen}
		s.inflight = call
		go s.run(context.WithoutCancel(ctx), call)
	}
	s.mu.Unlock()
	select {
	case <-call.done:
		return call.items, call.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the shared list: %w", ctx.Err())
	}
}

// run performs one fetch and keeps its result unless a write invalidated the list meanwhile.
func (s *sharedList[T]) run(ctx context.Context, call *listFetch[T]) {
	ctx, cancel := context.WithTimeout(ctx, s.fetchTimeout)
	defer cancel()
	items, err := s.fetch(ctx)
	s.mu.Lock()
	if s.inflight == call {
		s.inflight = nil
	}
	if err == nil && call.gen == s.gen {
		s.items, s.fetched = items, s.now()
	}
	s.mu.Unlock()
	call.items, call.err = items, err
	close(call.done)
}

// invalidate drops the copy; the next get fetches again. A fetch already running still answers
// the callers waiting on it but is neither kept nor joined by later callers.
func (s *sharedList[T]) invalidate() {
	s.mu.Lock()
	s.items = nil
	s.gen++
	s.inflight = nil
	s.mu.Unlock()
}
