package main

import (
	"context"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestOrphanedAfterSIGTERM: the provider exits only when both a SIGTERM has arrived and its
// parent has gone, in either order; a SIGTERM alone (Terraform is stopping it gracefully) or a
// new parent alone changes nothing.
func TestOrphanedAfterSIGTERM(t *testing.T) {
	t.Parallel()
	const parent, reaper = 4711, 1
	for _, tc := range []struct {
		name         string
		signal       bool
		parentGone   bool
		wantOrphaned bool
		signalFirst  bool
	}{
		{name: "SIGTERM, Terraform still there", signal: true},
		{name: "Terraform gone without a SIGTERM", parentGone: true},
		{name: "SIGTERM, then Terraform gone", signal: true, signalFirst: true, parentGone: true, wantOrphaned: true},
		{name: "Terraform gone, then SIGTERM", signal: true, parentGone: true, wantOrphaned: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ppid atomic.Int64
			ppid.Store(parent)
			signals := make(chan os.Signal, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			var logged atomic.Int64
			result := make(chan bool, 1)
			go func() {
				result <- orphanedAfterSIGTERM(ctx, signals, func() int { return int(ppid.Load()) }, time.Millisecond,
					func(string, ...any) { logged.Add(1) })
			}()
			time.Sleep(10 * time.Millisecond) // let it read the parent first
			if tc.signal && tc.signalFirst {
				signals <- syscall.SIGTERM
				time.Sleep(10 * time.Millisecond)
			}
			if tc.parentGone {
				ppid.Store(reaper)
			}
			if tc.signal && !tc.signalFirst {
				signals <- syscall.SIGTERM
			}
			select {
			case got := <-result:
				if got != tc.wantOrphaned {
					t.Errorf("orphaned: got %v, want %v", got, tc.wantOrphaned)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("orphanedAfterSIGTERM did not return after its context ended")
			}
			if want := map[bool]int64{true: 1, false: 0}[tc.signal]; logged.Load() != want {
				t.Errorf("log lines: got %d, want %d (one per signal)", logged.Load(), want)
			}
		})
	}
}
