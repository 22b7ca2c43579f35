package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// workDueQuery answers store.WorkDue in one statement; every part is a probe of an index (the
// status indexes of orders, app_installs, snapshots and deliveries, and the partial indexes of
// migration 0005), so its cost does not grow with the rows that are not due.
const workDueQuery = `SELECT
	EXISTS (SELECT 1 FROM orders WHERE status = '` + store.OrderPending + `'),
	EXISTS (SELECT 1 FROM app_installs WHERE status IN ('` + store.InstallQueued + `', '` + store.InstallInstalling + `')),
	EXISTS (SELECT 1 FROM snapshots WHERE status IN ('` + store.SnapshotCreating + `', '` + store.SnapshotRestoring + `')),
	EXISTS (SELECT 1 FROM accounts WHERE wallet_seq <> wallet_checked),
	EXISTS (SELECT 1 FROM instances WHERE ` + machineUndeleted + `),
	EXISTS (SELECT 1 FROM snapshots s WHERE ` + imageUndeleted + `),
	(SELECT MIN(renewal_due) FROM instances WHERE active),
	(SELECT MIN(renewal_due) FROM snapshots WHERE status IN ` + billedSnapshot + `),
	(SELECT MIN(next_at) FROM deliveries WHERE status = '` + store.DeliveryPending + `')`

func (q queries) WorkDue(ctx context.Context) (store.WorkDue, error) {
	var orders, installs, snapshots, wallets, machines, images bool
	var renewal, snapshotRenewal, delivery time.Time
	err := q.queryRow(ctx, workDueQuery).Scan(&orders, &installs, &snapshots, &wallets, &machines, &images,
		at(&renewal), at(&snapshotRenewal), at(&delivery))
	if err != nil {
		return store.WorkDue{}, fmt.Errorf("sqlstore: work due: %w", err)
	}
	return store.WorkDue{
		Provisioning: orders || installs,
		Accounts:     snapshots || wallets || machines || images,
		Renewal:      earliest(renewal, snapshotRenewal),
		Delivery:     delivery,
	}, nil
}

// earliest is the earlier of two times, a zero time standing for none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
