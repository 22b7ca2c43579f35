package devapi

import (
	"sync/atomic"
	"time"
)

// OffsetClock is real time moved forward by an offset that only grows: `resellerd dev` gives it
// to its backend as the service's clock, and POST /_dev/clock moves the whole service through
// time with it while requests keep their real pace between moves. It is safe for concurrent use.
type OffsetClock struct{ offset atomic.Int64 }

// Now is the real time plus the offset.
func (c *OffsetClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d (a negative d is ignored: time never runs back).
func (c *OffsetClock) Advance(d time.Duration) {
	if d > 0 {
		c.offset.Add(int64(d))
	}
}
