package server

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// The hooks below serve `resellerd dev`'s test-control API (/_dev/): they let a caller that
// holds an account's key act as the operator on that account's own instances and orders.

// AuthorizeInstance checks that key is a valid account key and that the instance belongs to that
// account. Its errors are the API's: 401 for a bad key, 404 for an instance of another account.
func (s *Server) AuthorizeInstance(ctx context.Context, key string, instanceID int64) error {
	acct, err := s.svc.Authenticate(ctx, key)
	if err != nil {
		return err
	}
	if _, err := s.svc.Instance(ctx, acct, instanceID, false); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// AuthorizeOrder checks that key is a valid account key and that the order belongs to that
// account and is still readable (401 or 404 otherwise).
func (s *Server) AuthorizeOrder(ctx context.Context, key string, orderID int64) error {
	acct, err := s.svc.Authenticate(ctx, key)
	if err != nil {
		return err
	}
	if _, err := s.svc.Order(ctx, acct, orderID); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// OffsetClock is real time moved forward by an offset that only grows: `resellerd dev` moves
// the whole service through time with it while requests keep their real pace between moves.
// It is safe for concurrent use.
type OffsetClock struct{ offset atomic.Int64 }

// Now is the real time plus the offset.
func (c *OffsetClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d (a negative d is ignored: time never runs back).
func (c *OffsetClock) Advance(d time.Duration) {
	if d > 0 {
		c.offset.Add(int64(d))
	}
}

// Offset is how far the clock runs ahead of real time.
func (c *OffsetClock) Offset() time.Duration { return time.Duration(c.offset.Load()) }
