package store

import (
	"context"
	"time"
)

// Retention deletes the rows no answer can show any more, at most limit rows per call, oldest
// first, so the work of one housekeeping tick does not grow with the rows ever stored. Each
// returns how many rows it deleted; a call that deleted limit rows may have left more.
type Retention interface {
	// PurgeTimedOutOrders deletes timed-out orders finished before before (the spec shows a
	// finished order for 24 hours, then 404) that no idempotency key still names. Deployed
	// orders stay: their instance refers to them.
	PurgeTimedOutOrders(ctx context.Context, before time.Time, limit int) (int, error)
	// PurgeFinishedDeliveries deletes delivered, failed and skipped deliveries finished before
	// before; pending ones stay.
	PurgeFinishedDeliveries(ctx context.Context, before time.Time, limit int) (int, error)
	// PurgeEvents deletes events written before before that have no delivery left (delivered
	// or abandoned ones, whose delivery was purged, and those of accounts without a webhook).
	PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error)
}
