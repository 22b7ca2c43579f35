package api

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// rateWindow is the span every limit counts over.
const rateWindow = time.Minute

// sweepEvery is how many calls pass between removals of idle keys, which bounds memory.
const sweepEvery = 1024

// RateWindows keeps, per key, the times of the requests a rate limit let through. The handler
// keeps them in its own memory unless Config.RateWindows is set; replicas behind one load
// balancer are given the database they share (PostgreSQL), so a key gets one limit per route
// whichever replica it reaches. The sliding-window rule itself lives in limiter only.
type RateWindows interface {
	// UpdateRateLog calls update with the times recorded for key (none for a new key) and
	// records what it returns, as one step: no other update of key, from any replica, runs
	// between the read and the write. now is when the key was last used, for DropRateLogsBefore.
	UpdateRateLog(ctx context.Context, key string, now time.Time, update func([]time.Time) []time.Time) error
	// DropRateLogsBefore forgets the keys last used before t.
	DropRateLogsBefore(ctx context.Context, t time.Time) error
}

// limiter applies the per-minute limits, scaled, as a sliding window over the RateWindows. It
// reads the injected clock so tests can move time.
type limiter struct {
	clock   Clock
	scale   float64
	windows RateWindows
	log     *slog.Logger
	calls   atomic.Int64
}

func newLimiter(clock Clock, scale float64, windows RateWindows, log *slog.Logger) *limiter {
	if windows == nil {
		windows = newMemoryWindows()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &limiter{clock: clock, scale: scale, windows: windows, log: log}
}

// on says whether any limit applies (a scale of 0 turns them off), so a caller need not build
// the key of a request that cannot be refused.
func (l *limiter) on() bool { return l.scale > 0 }

// allow records a request for key when fewer than perMinute (scaled) were let through in the last
// minute and reports whether it did; when not, it also returns the whole seconds until a slot
// frees, at least 1. When the windows cannot be read (the shared database is down) the request is
// let through and logged: a limit protects the API and is no reason to refuse what it would serve.
func (l *limiter) allow(ctx context.Context, key string, perMinute int) (bool, int) {
	if l.scale <= 0 {
		return true, 0
	}
	limit := max(1, int(math.Ceil(float64(perMinute)*l.scale)))
	now := l.clock.Now()
	if l.calls.Add(1)%sweepEvery == 0 {
		if err := l.windows.DropRateLogsBefore(ctx, now.Add(-rateWindow)); err != nil {
			l.log.WarnContext(ctx, "dropping idle rate limit windows", "error", err)
		}
	}
	allowed, wait := true, 0
	err := l.windows.UpdateRateLog(ctx, key, now, func(times []time.Time) []time.Time {
		recent := inWindow(times, now)
		if len(recent) >= limit {
			allowed = false
			wait = max(1, int(math.Ceil(recent[0].Add(rateWindow).Sub(now).Seconds())))
			return recent
		}
		allowed, wait = true, 0 // update may run again when a shared store retries
		return append(recent, now)
	})
	if err != nil {
		l.log.WarnContext(ctx, "rate limit windows unavailable; request let through", "error", err)
		return true, 0
	}
	return allowed, wait
}

// inWindow returns, oldest first, the times that are within the minute before now.
func inWindow(times []time.Time, now time.Time) []time.Time {
	cut := now.Add(-rateWindow)
	kept := slices.DeleteFunc(slices.Clone(times), func(t time.Time) bool { return !t.After(cut) })
	slices.SortFunc(kept, time.Time.Compare)
	return kept
}

// memoryWindows keeps the windows in this process's memory: those of a single resellerd (a SQLite
// database is served by one process).
type memoryWindows struct {
	mu   sync.Mutex
	logs map[string]memoryLog
}

type memoryLog struct {
	times    []time.Time
	lastUsed time.Time
}

func newMemoryWindows() *memoryWindows {
	return &memoryWindows{logs: map[string]memoryLog{}}
}

// UpdateRateLog implements RateWindows.
func (m *memoryWindows) UpdateRateLog(_ context.Context, key string, now time.Time, update func([]time.Time) []time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.logs[key] = memoryLog{times: update(m.logs[key].times), lastUsed: now}
	return nil
}

// DropRateLogsBefore implements RateWindows.
func (m *memoryWindows) DropRateLogsBefore(_ context.Context, t time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, log := range m.logs {
		if log.lastUsed.Before(t) {
			delete(m.logs, k)
		}
	}
	return nil
}
