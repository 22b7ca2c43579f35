package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// pingTimeout is how long the readiness probe waits for the database: a database slower than
// this cannot serve requests in time either.
const pingTimeout = time.Second

// minStaleBeat is the shortest time without a heartbeat after which a worker loop counts as
// stuck. A tick may legitimately take seconds (a webhook attempt waits up to 15 s for its
// receiver), and an idle loop sleeps up to IdleInterval between ticks.
const minStaleBeat = time.Minute

// pinger is a store that can tell whether its database answers.
type pinger interface{ Ping(context.Context) error }

// ready is the readiness probe (GET /readyz): nil when the database answers within pingTimeout
// and every worker loop has begun or ended a tick recently, else the reason. With
// WorkerInterval < 0 no loop runs and only the database is checked.
func (s *Server) ready(ctx context.Context) error {
	if p, ok := s.store.(pinger); ok {
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
