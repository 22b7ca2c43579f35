package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// blockingFetch is a list fetch that counts its calls and answers only when released.
type blockingFetch struct {
	calls   atomic.Int32
	release chan struct{}
	ctxErr  atomic.Pointer[error] // the fetch context's Err() after release
}

func newBlockingFetch() *blockingFetch { return &blockingFetch{release: make(chan struct{})} }

func (f *blockingFetch) fetch(ctx context.Context) (map[int64]int, error) {
	n := f.calls.Add(1)
	<-f.release
	err := ctx.Err()
	f.ctxErr.Store(&err)
	return map[int64]int{1: int(n)}, nil
}

func TestSharedList_concurrentCallersShareOneFetch(t *testing.T) {
	f := newBlockingFetch()
	s := newSharedList(time.Minute, f.fetch)
	var wg sync.WaitGroup
	results := make([]map[int64]int, 10)
	for i := range results {
		wg.Go(func() {
			items, err := s.get(context.Background())
			if err != nil {
				t.Errorf("caller %d: %v", i, err)
			}
			results[i] = items
		})
	}
	waitFor(t, func() bool { return f.calls.Load() == 1 })
	close(f.release)
	wg.Wait()
	for i, items := range results {
		if items[1] != 1 {
			t.Errorf("caller %d: got %v, want the first fetch's answer", i, items)
		}
	}
	if _, err := s.get(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.calls.Load(); got != 1 {
		t.Errorf("fetches: got %d, want 1 (one for the concurrent callers, the copy for the later one)", got)
	}
}

func TestSharedList_canceledWaiterDoesNotCancelTheFetch(t *testing.T) {
	f := newBlockingFetch()
	s := newSharedList(time.Minute, f.fetch)
	ctx, cancel := context.WithCancel(context.Background())
	firstErr := make(chan error, 1)
	go func() {
		_, err := s.get(ctx)
		firstErr <- err
	}()
	waitFor(t, func() bool { return f.calls.Load() == 1 })
	second := make(chan map[int64]int, 1)
	go func() {
		items, err := s.get(context.Background())
		if err != nil {
			t.Errorf("second caller: %v", err)
		}
		second <- items
	}()
	cancel()
	if err := <-firstErr; !errors.Is(err, context.Canceled) {
		t.Errorf("canceled caller: got %v, want context.Canceled", err)
	}
	close(f.release)
	if items := <-second; items[1] != 1 {
		t.Errorf("second caller: got %v, want the shared fetch's answer", items)
	}
	if err := *f.ctxErr.Load(); err != nil {
		t.Errorf("the fetch's context ended with the first caller's: %v", err)
	}
}

func TestSharedList_invalidateAndExpiryFetchAgain(t *testing.T) {
	var calls atomic.Int32
	now := time.Unix(0, 0)
	s := newSharedList(time.Minute, func(context.Context) (map[int64]int, error) {
		return map[int64]int{1: int(calls.Add(1))}, nil
	})
	s.now = func() time.Time { return now }
	get := func() int {
		t.Helper()
		items, err := s.get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return items[1]
	}
	if got := get(); got != 1 {
		t.Fatalf("first get: fetch %d", got)
	}
	s.invalidate()
	if got := get(); got != 2 {
		t.Errorf("after invalidate: got fetch %d, want a new fetch (2)", got)
	}
	now = now.Add(59 * time.Second)
	if got := get(); got != 2 {
		t.Errorf("within the ttl: got fetch %d, want the copy (2)", got)
	}
	now = now.Add(2 * time.Second)
	if got := get(); got != 3 {
		t.Errorf("after the ttl: got fetch %d, want a new fetch (3)", got)
	}
}

func TestSharedList_fetchRunningAcrossAWriteIsNotKept(t *testing.T) {
	f := newBlockingFetch()
	s := newSharedList(time.Minute, f.fetch)
	done := make(chan struct{})
	go func() {
		_, _ = s.get(context.Background())
		close(done)
	}()
	waitFor(t, func() bool { return f.calls.Load() == 1 })
	s.invalidate() // a write while the list is being read
	close(f.release)
	<-done
	if _, err := s.get(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.calls.Load(); got != 2 {
		t.Errorf("fetches: got %d, want 2 (the one older than the write must not answer later reads)", got)
	}
}

// waitFor polls cond for up to a minute, a bound that only keeps a broken test from hanging.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in a minute")
		}
		time.Sleep(time.Millisecond)
	}
}
