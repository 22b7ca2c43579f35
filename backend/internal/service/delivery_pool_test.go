package service

import (
	"sync"
	"testing"
	"time"
)

// TestAttemptPoolWaitsWhileAttemptsStart waits on the pool from several goroutines while others
// take and give slots, as RunDue's delivery step does beside the delivery loop or another
// RunDue (resellerd dev's run-due, the two-replica tests). A sync.WaitGroup refuses an Add
// while a Wait is returning ("WaitGroup is reused before previous Wait has returned"), which
// panicked here; the pool must not.
func TestAttemptPoolWaitsWhileAttemptsStart(t *testing.T) {
	t.Parallel()
	p := newAttemptPool()
	var wg sync.WaitGroup
	for account := range int64(4) {
		wg.Go(func() {
			for range 20_000 {
				if p.take(account) {
					p.give(account)
				}
			}
		})
		wg.Go(func() {
			for range 20_000 {
				p.wait()
			}
		})
	}
	wg.Wait()
	if accounts, full := p.busy(); len(accounts) != 0 || full || p.total != 0 {
		t.Fatalf("after every slot was given back: busy %v, full %t, %d in flight; want none", accounts, full, p.total)
	}
}

// TestAttemptPoolWaitReturnsWhenTheLastAttemptEnds has wait block while an attempt is in flight
// and return once it ends.
func TestAttemptPoolWaitReturnsWhenTheLastAttemptEnds(t *testing.T) {
	t.Parallel()
	p := newAttemptPool()
	p.wait() // nothing in flight: returns at once
	if !p.take(1) {
		t.Fatal("an empty pool refused a slot")
	}
	done := make(chan struct{})
	go func() {
		p.wait()
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("wait returned with an attempt in flight")
	case <-time.After(50 * time.Millisecond):
	}
	p.give(1)
	<-done
}
