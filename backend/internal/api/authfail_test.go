package api

import (
	"fmt"
	"testing"
	"time"
)

// TestAuthFailuresAreBounded: however many addresses fail, at most maxTrackedClients are
// remembered; an IPv6 client is counted by its /64.
func TestAuthFailuresAreBounded(t *testing.T) {
	t.Parallel()
	a := newAuthFailures(1)
	now := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	for i := range 3 * maxTrackedClients {
		a.failed(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), now)
	}
	if n := len(a.clients); n > maxTrackedClients {
		t.Fatalf("%d addresses remembered, want at most %d", n, maxTrackedClients)
	}
	for i := range authFailuresPerMinute {
		a.failed(fmt.Sprintf("2001:db8:1:2::%x", i+1), now)
	}
	if wait := a.blocked("2001:db8:1:2:ffff::1", &fixedClock{now.Add(10 * time.Second)}); wait != 50 {
		t.Fatalf("another address of the same /64 waits %d s, want 50", wait)
	}
	if wait := a.blocked("2001:db8:1:3::1", &fixedClock{now}); wait != 0 {
		t.Fatalf("another /64 waits %d s, want 0", wait)
	}
}

// TestAuthFailuresCheckedWithoutClock: while no address has failed, a request is let through
// without reading the clock (nor taking the lock); once one has, its own block is still found;
// once its window has ended, the next check forgets it and the ones after read no clock again.
func TestAuthFailuresCheckedWithoutClock(t *testing.T) {
	t.Parallel()
	a := newAuthFailures(1)
	clock := &countingClock{now: time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)}
	if wait := a.blocked("192.0.2.1", clock); wait != 0 || clock.reads != 0 {
		t.Fatalf("nothing failed: wait %d s, %d clock reads; want 0, 0", wait, clock.reads)
	}
	for range authFailuresPerMinute {
		a.failed("192.0.2.1", clock.now)
	}
	if wait := a.blocked("192.0.2.1", clock); wait != 60 || clock.reads != 1 {
		t.Fatalf("after %d failures: wait %d s, %d clock reads; want 60, 1", authFailuresPerMinute, wait, clock.reads)
	}
	clock.now = clock.now.Add(rateWindow)
	if wait := a.blocked("192.0.2.1", clock); wait != 0 || clock.reads != 2 {
		t.Fatalf("the window over: wait %d s, %d clock reads; want 0, 2", wait, clock.reads)
	}
	if wait := a.blocked("198.51.100.1", clock); wait != 0 || clock.reads != 2 {
		t.Fatalf("the ended window forgotten: wait %d s, %d clock reads; want 0, 2", wait, clock.reads)
	}
}

// countingClock counts its reads.
type countingClock struct {
	now   time.Time
	reads int
}

func (c *countingClock) Now() time.Time { c.reads++; return c.now }
