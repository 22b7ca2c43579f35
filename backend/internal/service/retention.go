package service

import (
	"context"
	"fmt"
	"time"
)

// DefaultEventRetention is how long delivered and abandoned events and their deliveries are
// kept when Config.EventRetention is 0 (--retain-events).
const DefaultEventRetention = 168 * time.Hour

// retentionBatch bounds the rows each purge deletes per housekeeping tick; a purge that
// deleted a whole batch runs again at the next tick instead of a minute later, so the purges
// keep up with any churn while the work of one tick stays bounded.
const retentionBatch = 500

// purgeRetained deletes one batch of each kind of row no answer can show any more: timed-out
// orders finished more than OrderRetention ago (the spec's 404), finished deliveries and then
// events without a delivery older than the event retention. Money (ledger, payments) and
// instances are never purged.
func (s *Service) purgeRetained(ctx context.Context, now time.Time) error {
	purges := []struct {
		what   string
		before time.Time
		run    func(context.Context, time.Time, int) (int, error)
	}{
		{"timed-out orders", now.Add(-OrderRetention), s.store.PurgeTimedOutOrders},
		{"finished deliveries", now.Add(-s.eventRetention), s.store.PurgeFinishedDeliveries},
		{"events", now.Add(-s.eventRetention), s.store.PurgeEvents},
	}
	more := false
	for _, p := range purges {
		n, err := p.run(ctx, p.before, retentionBatch)
		if err != nil {
			return fmt.Errorf("service: purge %s: %w", p.what, err)
		}
		more = more || n == retentionBatch
	}
	if more {
		s.retention.again()
	}
	return nil
}
