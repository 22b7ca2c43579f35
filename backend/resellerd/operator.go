package resellerd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// The operator and test hooks below act as support, the system or the datacenter would. The
// provider's acceptance tests use them to reach states a client cannot cause by itself.

// TimeOutOrder ends a pending order at once as if its order window had passed: nothing is
// created or charged, the order gets a support reference and order.timed_out is emitted. It
// fails for an order that is not pending.
func (s *Server) TimeOutOrder(ctx context.Context, orderID int64) error {
	if err := s.svc.TimeOutOrder(ctx, orderID); err != nil {
		return fmt.Errorf("server: time out order %d: %w", orderID, err)
	}
	return nil
}

// SetFailRate changes, from now on, the share (0 to 1) of simulated builds that never finish
// (their orders time out) and of datacenter operations that fail with 502 provider_error, for
// every replica sharing the database.
func (s *Server) SetFailRate(ctx context.Context, rate float64) error {
	if rate < 0 || rate > 1 {
		return fmt.Errorf("server: fail rate %v is not from 0 to 1", rate)
	}
	if err := s.sim.SetFailRate(ctx, rate); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// LockInstance locks an active instance for reason ("debt", "traffic", "abuse", ...);
// operations on it answer 409 instance_locked while reads and DELETE still work.
func (s *Server) LockInstance(ctx context.Context, instanceID int64, reason string) error {
	if err := s.svc.LockInstance(ctx, instanceID, reason); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// UnlockInstance lifts the lock of an active instance.
func (s *Server) UnlockInstance(ctx context.Context, instanceID int64) error {
	if err := s.svc.UnlockInstance(ctx, instanceID); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// LockSnapshot locks an active snapshot for reason as the system does when a charge of it is
// unpaid ("unpaid", the reason the API documents and the one a top-up that clears the debt
// lifts): restoring it and building a server from it answer 409 snapshot_locked while reads,
// renames and DELETE still work. It lets tests reach a locked snapshot without running billing
// into debt; like a real unpaid lock, one left for 72 hours makes the snapshot expire.
func (s *Server) LockSnapshot(ctx context.Context, snapshotID int64, reason string) error {
	if err := s.svc.LockSnapshot(ctx, snapshotID, reason); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// UnlockSnapshot lifts the lock of an active snapshot, as support would; any debt stays owed.
func (s *Server) UnlockSnapshot(ctx context.Context, snapshotID int64) error {
	if err := s.svc.UnlockSnapshot(ctx, snapshotID); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// ChangeRootPasswordOutOfBand changes the instance's root password on its machine (the
// simulated one, or under --machines sandbox the real one) behind the service's back, as a user logged in over SSH would. The stored password stops
// working: app installs then fail with stage auth_failed until reset_password is run. The
// change is kept in the database, so every replica (and a restarted backend) sees it.
func (s *Server) ChangeRootPasswordOutOfBand(ctx context.Context, instanceID int64) error {
	ref, err := s.svc.MachineRef(ctx, instanceID)
	if err == nil {
		err = s.outOfBand.SetRootPasswordOutOfBand(ctx, ref)
	}
	if err != nil {
		return fmt.Errorf("server: change root password of instance %d: %w", instanceID, err)
	}
	return nil
}

// Overview reads the whole service within limits, across accounts, for the console of
// `resellerd dev` (GET /_dev/overview): accounts with their balance histories, active servers,
// pending orders, active snapshots and recent webhook deliveries. Its reads are bounded and
// index-backed. Its rows are the store's, credentials included: the caller picks what to show
// (devapi shows no key, password or secret).
func (s *Server) Overview(ctx context.Context, limits service.OverviewLimits) (service.Overview, error) {
	o, err := s.svc.Overview(ctx, limits)
	if err != nil {
		return service.Overview{}, fmt.Errorf("server: %w", err)
	}
	return o, nil
}

// AuthorizeInstance checks that key is a valid account key and that the instance belongs to that
// account, so that a hook acts for the holder of an account's key (`resellerd dev`'s /_dev/
// routes) only on that account's instances. Its errors are the API's: 401 for a bad key, 404
// for an instance of another account.
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

// ManualClock is a Clock that moves only when told to, for tests that drive billing, order
// windows and rate limits through time (pair it with Config.WorkerInterval < 0 and RunDue).
// It is safe for concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a clock standing at start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// FailRate is the share (0 to 1) of simulated builds that never finish and of datacenter
// operations that fail, as this backend applies it now. A SetFailRate through another replica
// of the same PostgreSQL database reaches it within a notification's delay, so an operator (or
// a test) that changed the rate elsewhere can tell when this replica follows it.
func (s *Server) FailRate(ctx context.Context) (float64, error) {
	rate, err := s.sim.FailRate(ctx)
	if err != nil {
		return 0, fmt.Errorf("server: %w", err)
	}
	return rate, nil
}
