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

// oldestDueQuery answers OldestDue in one statement; each part reads the first entry of an
// index (orders_status, deliveries_due, instances_renewal_due, snapshots_status) or the few open
// app installs, so a scrape costs the same however long the queues are. Order ids grow with
// their creation, so the first pending id is the oldest pending order.
const oldestDueQuery = `SELECT
	(SELECT created_at FROM orders WHERE status = '` + store.OrderPending + `' ORDER BY id LIMIT 1),
	(SELECT MIN(next_at) FROM deliveries WHERE status = '` + store.DeliveryPending + `'),
	(SELECT MIN(renewal_due) FROM instances WHERE active),
	(SELECT MIN(next_at) FROM app_installs WHERE status IN ('` + store.InstallQueued + `', '` + store.InstallInstalling + `')),
	(SELECT MIN(renewal_due) FROM snapshots WHERE status IN ` + billedSnapshot + `)`

// OldestDue reads when the oldest due item of each worker queue became due (the metrics).
func (q queries) OldestDue(ctx context.Context) (store.OldestDue, error) {
	var o store.OldestDue
	err := q.queryRow(ctx, oldestDueQuery).Scan(at(&o.Provisioning), at(&o.Deliveries), at(&o.Renewals),
		at(&o.Installs), at(&o.Snapshots))
	if err != nil {
		return store.OldestDue{}, fmt.Errorf("sqlstore: oldest due: %w", err)
	}
	return o, nil
}
