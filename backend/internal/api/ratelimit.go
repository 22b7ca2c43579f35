package api

import (
	"math"
	"sync"
	"time"
)

// rateWindow is the span every limit counts over.
const rateWindow = time.Minute

// sweepEvery is how many calls pass between removals of idle keys, which bounds memory.
const sweepEvery = 1024

// limiter is a sliding-window log per key: a request is allowed when fewer than the limit were
// allowed in the last minute. It reads the injected clock so tests can move time.
type limiter struct {
	mu    sync.Mutex
	clock Clock
	scale float64
	hits  map[string][]time.Time
	calls int
}

func newLimiter(clock Clock, scale float64) *limiter {
	return &limiter{clock: clock, scale: scale, hits: map[string][]time.Time{}}
}

// allow records a request for key when it is within perMinute (scaled) and reports whether it
// was; when not, it also returns the whole seconds until a slot frees, at least 1.
func (l *limiter) allow(key string, perMinute int) (bool, int) {
	if l.scale <= 0 {
		return true, 0
	}
	limit := max(1, int(math.Ceil(float64(perMinute)*l.scale)))
	now := l.clock.Now()

	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.calls%sweepEvery == 0 {
		l.sweep(now)
	}
	recent := pruned(l.hits[key], now)
	if len(recent) >= limit {
		l.hits[key] = recent
		wait := recent[0].Add(rateWindow).Sub(now)
		return false, max(1, int(math.Ceil(wait.Seconds())))
	}
	l.hits[key] = append(recent, now)
	return true, 0
}

// pruned drops the times that left the window; times are in the order they were recorded.
func pruned(times []time.Time, now time.Time) []time.Time {
	cut := 0
	for cut < len(times) && !times[cut].After(now.Add(-rateWindow)) {
		cut++
	}
	return times[cut:]
}

func (l *limiter) sweep(now time.Time) {
	for k, times := range l.hits {
		if len(pruned(times, now)) == 0 {
			delete(l.hits, k)
		}
	}
}
