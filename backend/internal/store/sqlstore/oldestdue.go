package sqlstore

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

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
