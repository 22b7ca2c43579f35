package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The provisioning worker's writes of a batch of orders, one statement each (see
// store.BatchQueries). Each takes the rows of the batch's values by order id and account
// (batchRows), so an order is only written as the account the transaction locked.

// batchRows is the condition that picks the rows of table named in the batch's values v(id,
// account_id, ...) by id, each only as the account given with it and only while guard (a
// condition on the row, "" for none) holds. The guard is checked inside the account's
// subquery so that no planner takes it for the way in: UPDATE ... FROM v, or a plain status =
// ?, had SQLite, and PostgreSQL before its first ANALYZE, walk every pending order through the
// status index (17 ms and 100 ms a statement of 50 orders out of 20,000), where by id each
// takes 1 to 2 ms.
func batchRows(table, guard string) string {
	if guard != "" {
		guard = " AND " + guard
	}
	return table + `.id IN (SELECT id FROM v) AND ` + table + `.account_id = (SELECT v.account_id FROM v WHERE v.id = ` +
		table + `.id` + guard + `)`
}

// batchValue is the column col of the batch's values v for the row of table being written.
func batchValue(col, table string) string {
	return `(SELECT v.` + col + ` FROM v WHERE v.id = ` + table + `.id)`
}

// keyArgs are the accounts of keys, to lock, and the id and account of each as arguments.
func keyArgs(keys []store.OrderKey) (accounts []int64, args []any) {
	for _, k := range keys {
		accounts = append(accounts, k.AccountID)
		args = append(args, k.ID, k.AccountID)
	}
	return accounts, args
}

// ClaimOrders takes the leases with one guarded UPDATE; like ClaimOrder, a claimer that waited
// for a concurrent claim sees the guard evaluated on the row that claim committed.
func (q queries) ClaimOrders(ctx context.Context, keys []store.OrderKey, now, until time.Time) ([]int64, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	accounts, args := keyArgs(keys)
	if err := q.lockAccounts(ctx, accounts); err != nil {
		return nil, err
	}
	ids, err := list(ctx, q, "claimed orders", scanID, `WITH `+valuesCTE("v(id, account_id)", []string{"BIGINT", "BIGINT"}, len(keys))+`
		UPDATE orders SET lease_until = ? WHERE `+batchRows("orders", "orders.status = ?")+`
		AND (lease_until IS NULL OR lease_until <= ?) RETURNING id`,
		append(args, until, store.OrderPending, now)...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: claim %d orders: %w", len(keys), err)
	}
	return ids, nil
}

func (q queries) ReleaseOrders(ctx context.Context, releases []store.OrderRelease) error {
	if len(releases) == 0 {
		return nil
	}
	accounts := make([]int64, len(releases))
	args := make([]any, 0, 3*len(releases)+1)
	for i, r := range releases {
		accounts[i] = r.AccountID
		args = append(args, r.ID, r.AccountID, r.Ticket)
	}
	if err := q.lockAccounts(ctx, accounts); err != nil {
		return err
	}
	n, err := rowsAffected(q.exec(ctx, `WITH `+valuesCTE("v(id, account_id, ticket)", []string{"BIGINT", "BIGINT", "TEXT"}, len(releases))+`
		UPDATE orders SET lease_until = NULL,
		ticket = CASE WHEN `+batchValue("ticket", "orders")+` <> '' AND status = ? THEN `+batchValue("ticket", "orders")+` ELSE ticket END
		WHERE `+batchRows("orders", ""), append(args, store.OrderPending)...))
	if err != nil {
		return fmt.Errorf("sqlstore: release %d orders: %w", len(releases), err)
	}
	if n != int64(len(releases)) {
		return fmt.Errorf("sqlstore: release orders: %d of %d: %w", n, len(releases), store.ErrNotFound)
	}
	return nil
}

// FinishOrders moves the orders with one guarded UPDATE, which returns what each finished order
// held reserved and drops its app inputs (a deployed order's installs have their own copy, a
// timed-out one installs nothing), and takes them out of their accounts' pending counts with
// one more.
func (q queries) FinishOrders(ctx context.Context, finishes []store.OrderFinish, at time.Time) error {
	if len(finishes) == 0 {
		return nil
	}
	accounts := make([]int64, len(finishes))
	args := make([]any, 0, 5*len(finishes)+2)
	for i, f := range finishes {
		var inst any
		if f.InstanceID != 0 {
			inst = f.InstanceID
		}
		accounts[i] = f.AccountID
		args = append(args, f.ID, f.AccountID, f.Status, inst, f.Reference)
	}
	if err := q.lockAccounts(ctx, accounts); err != nil {
		return err
	}
	type finished struct{ account, price int64 }
	done, err := list(ctx, q, "finished orders", func(r rowScanner) (finished, error) {
		var f finished
		err := r.Scan(&f.account, &f.price)
		return f, err
	}, `WITH `+valuesCTE("v(id, account_id, status, instance_id, reference)",
		[]string{"BIGINT", "BIGINT", "TEXT", "BIGINT", "TEXT"}, len(finishes))+`
		UPDATE orders SET status = `+batchValue("status", "orders")+`, finished_at = ?,
		instance_id = `+batchValue("instance_id", "orders")+`, reference = `+batchValue("reference", "orders")+`,
		lease_until = NULL, app_inputs = '{}' WHERE `+batchRows("orders", "orders.status = ?")+` RETURNING account_id, price_micros`, append(args, at, store.OrderPending)...)
	if err != nil {
		return fmt.Errorf("sqlstore: finish %d orders: %w", len(finishes), err)
	}
	if len(done) != len(finishes) {
		return fmt.Errorf("sqlstore: finish orders: %d of %d still pending: %w", len(done), len(finishes), store.ErrConflict)
	}
	// A finished order is no longer pending and its price no longer reserved.
	deltas := map[int64][]int64{}
	for _, f := range done {
		addDeltas(deltas, f.account, -1, -f.price)
	}
	return q.addToAccounts(ctx, []string{"orders_pending", "orders_reserved_micros"}, deltas)
}
