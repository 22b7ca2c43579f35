package devapi

import (
	"sync/atomic"
	"time"
)

// OffsetClock is real time moved forward by an offset that only grows (a restore aside, see
// SetOffset): `resellerd dev` gives it to its backend as the service's clock, and POST
// /_dev/clock moves the whole service through time with it while requests keep their real pace
// between moves. It is safe for concurrent use.
type OffsetClock struct{ offset atomic.Int64 }

// Now is the real time plus the offset.
func (c *OffsetClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d (a negative d is ignored: time never runs back).
func (c *OffsetClock) Advance(d time.Duration) {
	if d > 0 {
		c.offset.Add(int64(d))
	}
}

// Offset is how far the clock runs ahead of real time: what a checkpoint or a state file keeps.
func (c *OffsetClock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// SetOffset puts back an offset Offset read earlier. Only a restore of the whole service calls
// it, with the database saved at that offset: the clock may then run back, but never behind the
// rows it comes back with, which were written before their checkpoint was taken.
func (c *OffsetClock) SetOffset(d time.Duration) { c.offset.Store(int64(d)) }
