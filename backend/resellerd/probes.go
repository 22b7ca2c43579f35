package resellerd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// pingTimeout is how long the readiness probe waits for the database: a database slower than
// this cannot serve requests in time either.
const pingTimeout = time.Second

// readyMaxAge is how old the database check that /readyz answers from may be. The probe needs
// no key and has no rate limit (a load balancer's probes all come from one address), so a flood
// of probes, from the load balancer or from anyone, costs at most one query a second per
// process, and a database that stops answering turns /readyz 503 within about a second.
const readyMaxAge = time.Second

// minStaleBeat is the shortest time without a heartbeat after which a worker loop counts as
// stuck. A tick may legitimately take seconds (a webhook attempt waits up to 15 s for its
// receiver), and an idle loop sleeps up to IdleInterval between ticks.
const minStaleBeat = time.Minute

// pinger is a store that can tell whether its database answers.
type pinger interface{ Ping(context.Context) error }

// ready is the readiness probe (GET /readyz): nil when the database answered within
// pingTimeout (a check at most readyMaxAge old, shared by every probe of this process) and every
// worker loop has begun or ended a tick recently, else the reason. With WorkerInterval < 0 no
// loop runs and only the database is checked. The loops' heartbeats are in memory, so they are
// read afresh by every probe.
func (s *Server) ready(ctx context.Context) error {
	if p, ok := s.store.(pinger); ok {
		ping := func(ctx context.Context) error { return s.pingDB(ctx, p) }
		if err := s.dbReady.do(ctx, readyMaxAge, ping); err != nil {
			return err
		}
	}
	if s.interval < 0 {
		return nil
	}
	stale := max(minStaleBeat, 3*s.idle)
	for i, l := range s.loops {
		if last := l.beat.last(); !last.IsZero() && time.Since(last) > stale {
			return fmt.Errorf("worker loop %d (%s) has not ticked for %s", i, l.steps[0].name, time.Since(last).Round(time.Second))
		}
	}
	return nil
}

// pingDB asks the database for one query within pingTimeout: nil when it answered, else an
// error fit for the unauthenticated probe's answer.
func (s *Server) pingDB(ctx context.Context, p pinger) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := p.Ping(ctx); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("database did not answer within %s", pingTimeout)
		}
		// The driver's error may name the database's host, user and name: the operator's log
		// has it, the unauthenticated probe answer does not.
		s.log.DebugContext(ctx, "readiness: database ping", slog.Any("error", err))
		return errors.New("database unavailable")
	}
	return nil
}

// sharedCheck runs a check on behalf of many concurrent callers: a caller gets the result of
// the last check if it started less than maxAge ago, else waits for the check already running,
// else runs one itself. So checks start at least maxAge apart and never overlap. The zero value
// is ready to use.
type sharedCheck struct {
	now func() time.Time // nil: time.Now (real time, never the backend's Clock, which tests and dev move)

	mu      sync.Mutex
	started time.Time    // when the last finished check started; zero before the first
	err     error        // its result
	flight  *checkFlight // the check running now; nil when none
}

// checkFlight is one running check, which the callers arriving meanwhile wait for.
type checkFlight struct {
	done chan struct{} // closed when err is set
	err  error
}

// do returns the shared result of run (see sharedCheck). run gets ctx without its cancellation:
// a caller that goes away must not fail the check the others wait for; run bounds itself.
func (c *sharedCheck) do(ctx context.Context, maxAge time.Duration, run func(context.Context) error) error {
	c.mu.Lock()
	now := c.clock()
	if !c.started.IsZero() && now.Sub(c.started) < maxAge {
		err := c.err
		c.mu.Unlock()
		return err
	}
	if f := c.flight; f != nil {
		c.mu.Unlock()
		select {
		case <-f.done:
			return f.err
		case <-ctx.Done():
			return fmt.Errorf("waiting for the readiness check: %w", ctx.Err())
		}
	}
	f := &checkFlight{done: make(chan struct{})}
	c.flight = f
	c.mu.Unlock()

	f.err = errors.New("readiness check did not finish") // what the waiters get if run panics
	defer func() {
		c.mu.Lock()
		c.started, c.err, c.flight = now, f.err, nil
		c.mu.Unlock()
		close(f.done)
	}()
	f.err = run(context.WithoutCancel(ctx))
	return f.err
}

func (c *sharedCheck) clock() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}
