package sqlstore

import (
	"context"
	"fmt"
	"time"
)

// The purges of the retention job. Each deletes one bounded batch, oldest first, found through
// the indexes of migration 0011 (the status literal lets SQLite use the partial index); they
// lock no account, like DeleteIdempotencyKeys, and touch only rows no request reads.

// PurgeTimedOutOrders deletes up to limit timed-out orders finished before before that no
// idempotency key or instance names (see store.Retention).
func (s *Store) PurgeTimedOutOrders(ctx context.Context, before time.Time, limit int) (int, error) {
	return s.purge(ctx, "timed-out orders", `DELETE FROM orders WHERE id IN (
		SELECT o.id FROM orders o WHERE o.status = 'timed_out' AND o.finished_at IS NOT NULL AND o.finished_at < ?
		AND NOT EXISTS (SELECT 1 FROM idempotency_keys k WHERE k.order_id = o.id)
		AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.order_id = o.id)
		ORDER BY o.finished_at LIMIT ?)`, before, limit)
}

// PurgeFinishedDeliveries deletes up to limit finished deliveries (see store.Retention).
func (s *Store) PurgeFinishedDeliveries(ctx context.Context, before time.Time, limit int) (int, error) {
	return s.purge(ctx, "finished deliveries", `DELETE FROM deliveries WHERE id IN (
		SELECT id FROM deliveries WHERE finished_at IS NOT NULL AND finished_at < ? AND status <> 'pending'
		ORDER BY finished_at LIMIT ?)`, before, limit)
}

// PurgeEvents deletes up to limit events written before before with no delivery left (see
// store.Retention).
func (s *Store) PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	return s.purge(ctx, "events", `DELETE FROM events WHERE id IN (
		SELECT e.id FROM events e WHERE e.created_at < ?
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
		ORDER BY e.created_at LIMIT ?)`, before, limit)
}

// purge runs one batch delete and returns how many rows it deleted.
func (s *Store) purge(ctx context.Context, what, query string, before time.Time, limit int) (int, error) {
	n, err := rowsAffected(s.exec(ctx, query, before, limit))
	if err != nil {
		return 0, fmt.Errorf("sqlstore: purge %s: %w", what, err)
	}
	return int(n), nil
}
