package sqlstore

import (
	"context"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// DueDeliveriesExcept is DueDeliveries without the accounts in skip (a handful: those whose
// attempts in flight are at their bound).
func (q queries) DueDeliveriesExcept(ctx context.Context, now time.Time, limit int, skip []int64) ([]store.Delivery, error) {
	if len(skip) == 0 {
		return q.DueDeliveries(ctx, now, limit)
	}
	args := []any{store.DeliveryPending, now, now}
	for _, id := range skip {
		args = append(args, id)
	}
	args = append(args, limit)
	return list(ctx, q, "deliveries", scanDelivery, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE status = ? AND next_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
		AND account_id NOT IN (`+strings.Repeat("?, ", len(skip)-1)+`?) ORDER BY next_at, `+seqToken+
		` LIMIT ?`+q.workerLock(skipLocked), args...)
}
