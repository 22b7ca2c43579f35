package resellerd

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// streaks remembers which steps of one worker loop are failing, so a failure is logged when its
// streak starts and again when the step recovers, not at every tick: a database that is down
// for a minute makes two lines per step, not six hundred. One loop's goroutine owns it.
type streaks struct {
	log     *slog.Logger
	failing map[string]streak // by step name
}

// streak is one step's run of failures.
type streak struct {
	since time.Time
	count int
}

func newStreaks(log *slog.Logger) *streaks {
	return &streaks{log: log, failing: map[string]streak{}}
}

// record notes the outcome of one run of the step name: the first failure of a streak is logged
// at error, the following ones at debug, and the first success after them at info with the
// length of the streak.
func (s *streaks) record(ctx context.Context, name string, err error) {
	st, wasFailing := s.failing[name]
	switch {
	case err != nil && !wasFailing:
		s.failing[name] = streak{since: time.Now(), count: 1}
		s.log.ErrorContext(ctx, "worker failing", slog.String("worker", name), slog.Any("error", err))
	case err != nil:
		st.count++
		s.failing[name] = st
		s.log.DebugContext(ctx, "worker still failing", slog.String("worker", name), slog.Int("failures", st.count), slog.Any("error", err))
	case wasFailing:
		delete(s.failing, name)
		s.log.InfoContext(ctx, "worker recovered", slog.String("worker", name), slog.Int("failures", st.count),
			slog.Duration("failing_for", time.Since(st.since)))
	}
}

// heartbeat is when a worker loop last began or ended a tick, for the readiness probe: a loop
// stuck in a step, or no longer running, stops beating.
type heartbeat struct{ unixNano atomic.Int64 }

func (h *heartbeat) beat() { h.unixNano.Store(time.Now().UnixNano()) }

// last is the time of the last beat; zero before the first.
func (h *heartbeat) last() time.Time {
	n := h.unixNano.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
