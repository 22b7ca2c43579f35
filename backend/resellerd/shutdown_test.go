package resellerd

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// stepProbe is a worker step that blocks until released and records how it ended.
type stepProbe struct {
	started  chan struct{}
	release  chan struct{}
	ctxErr   atomic.Value // the step context's error when the step returned
	nextRuns atomic.Int32 // runs of the step after it
}

func newStepProbe() *stepProbe {
	return &stepProbe{started: make(chan struct{}), release: make(chan struct{})}
}

// steps is the blocking step, which returns when released or when its context ends, then a
// step that counts its runs.
func (p *stepProbe) steps() []step {
	first := true
	return []step{
		{"blocking", func(ctx context.Context) error {
			if first {
				first = false
				close(p.started)
				select {
				case <-p.release:
				case <-ctx.Done():
				}
				p.ctxErr.Store(ctxErrString(ctx))
			}
			return nil
		}},
		{"next", func(context.Context) error { p.nextRuns.Add(1); return nil }},
	}
}

func ctxErrString(ctx context.Context) string {
	if ctx.Err() == nil {
		return "none"
	}
	return ctx.Err().Error()
}

func newWorkerServer(grace time.Duration) *Server {
	return &Server{interval: time.Millisecond, stepGrace: grace, log: slog.New(slog.DiscardHandler)}
}

// TestWorkersStopBetweenSteps checks that stopping the workers lets the step in progress finish
// with a live context and starts no further step.
func TestWorkersStopBetweenSteps(t *testing.T) {
	t.Parallel()
	s := newWorkerServer(time.Hour)
	p := newStepProbe()
	s.loops = []workerLoop{newWorkerLoop(p.steps(), nil)}
	s.startWorkers(context.Background())
	waitClosed(t, p.started)
	s.stop() // what stopWorkers does first, done here so the release comes after it
	close(p.release)
	s.stopWorkers()
	if got := p.ctxErr.Load(); got != "none" {
		t.Fatalf("the running step's context ended with %v; want it alive until the step finished", got)
	}
	if n := p.nextRuns.Load(); n != 0 {
		t.Fatalf("the step after the running one ran %d times after the stop, want 0", n)
	}
}

// TestWorkersStepGrace checks that a step still running stepGrace after the stop is cancelled,
// so Close is bounded.
func TestWorkersStepGrace(t *testing.T) {
	t.Parallel()
	s := newWorkerServer(10 * time.Millisecond)
	p := newStepProbe()
	s.loops = []workerLoop{newWorkerLoop(p.steps(), nil)}
	s.startWorkers(context.Background())
	waitClosed(t, p.started)
	s.stopWorkers() // the step is never released: only the grace ends it
	if got := p.ctxErr.Load(); got != context.Canceled.Error() {
		t.Fatalf("the step's context ended with %v, want %v", got, context.Canceled)
	}
}

func waitClosed(t *testing.T, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(eventWait):
		t.Fatal("the worker step did not start")
	}
}
