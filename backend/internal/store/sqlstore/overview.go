package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The reads of store.Overview, for the console of `resellerd dev`. Each is one statement with a
// LIMIT, found through an index (query_plans_test.go shows SQLite's plans); none locks a row.

// overviewAccounts reads the first accounts with their counts through the primary key.
const overviewAccounts = `SELECT ` + accountCountsColumns + ` FROM accounts ORDER BY id LIMIT ?`

// overviewInstances reads the newest active instances of every account.
const overviewInstances = `SELECT ` + instanceColumns + ` FROM instances WHERE active = TRUE ORDER BY id DESC LIMIT ?`

// overviewOrders reads the oldest pending orders through orders_status (status, id).
const overviewOrders = `SELECT ` + orderColumns + ` FROM orders WHERE status = '` + store.OrderPending + `' ORDER BY id LIMIT ?`

// overviewSnapshots reads the newest active snapshots through snapshots_status.
const overviewSnapshots = selectSnapshots + `WHERE s.status IN ` + activeSnapshot + ` ORDER BY s.id DESC LIMIT ?`

// overviewPendingDeliveries reads the pending deliveries due first through deliveries_due.
const overviewPendingDeliveries = `SELECT ` + deliveryColumns + ` FROM deliveries
	WHERE status = '` + store.DeliveryPending + `' ORDER BY next_at LIMIT ?`

// overviewFinishedDeliveries reads the last finished deliveries through deliveries_finished.
const overviewFinishedDeliveries = `SELECT ` + deliveryColumns + ` FROM deliveries
	WHERE finished_at IS NOT NULL ORDER BY finished_at DESC LIMIT ?`

// overviewLedger reads, for each account of an IN list, its entries from its perAccount-th
// newest on: the subquery finds that entry's id through ledger_account (account_id, id), and the
// join then reads only the entries from there, so an account with years of hourly renewals
// costs perAccount index steps, not its whole history. The balance after each entry is the
// account's balance less the entries after it (a running sum, newest first), all in one
// statement so they agree. The IN list comes first, then the offset (perAccount - 1).
const overviewLedger = `SELECT l.account_id, l.id, l.created_at, CAST(a.balance_micros
		- SUM(l.amount_micros) OVER (PARTITION BY l.account_id ORDER BY l.id DESC) + l.amount_micros AS BIGINT)
	FROM accounts a JOIN ledger l ON l.account_id = a.id
	WHERE a.id IN %s AND l.id >= COALESCE((SELECT m.id FROM ledger m WHERE m.account_id = a.id
		ORDER BY m.id DESC LIMIT 1 OFFSET ?), 0)
	ORDER BY l.account_id, l.id`

func (q queries) AccountsWithCounts(ctx context.Context, limit int) ([]store.AccountCounts, error) {
	return list(ctx, q, "accounts with counts", func(r rowScanner) (store.AccountCounts, error) {
		var c store.AccountCounts
		err := r.Scan(accountCountsDest(&c)...)
		return c, err
	}, overviewAccounts, limit)
}

func (q queries) ActiveInstances(ctx context.Context, limit int) ([]store.Instance, error) {
	return list(ctx, q, "active instances", q.scanInstance, overviewInstances, limit)
}

func (q queries) PendingOrders(ctx context.Context, limit int) ([]store.Order, error) {
	return list(ctx, q, "pending orders", q.scanOrder, overviewOrders, limit)
}

func (q queries) ActiveSnapshots(ctx context.Context, limit int) ([]store.Snapshot, error) {
	return list(ctx, q, "active snapshots", q.scanSnapshot, overviewSnapshots, limit)
}

func (q queries) RecentDeliveries(ctx context.Context, limit int) ([]store.Delivery, error) {
	pending, err := list(ctx, q, "pending deliveries", scanDelivery, overviewPendingDeliveries, limit)
	if err != nil {
		return nil, err
	}
	finished, err := list(ctx, q, "finished deliveries", scanDelivery, overviewFinishedDeliveries, limit)
	if err != nil {
		return nil, err
	}
	return append(pending, finished...), nil
}

func (q queries) BalanceHistory(ctx context.Context, accountIDs []int64, perAccount int) ([]store.BalancePoint, error) {
	ids := slices.Compact(slices.Sorted(slices.Values(accountIDs)))
	if len(ids) == 0 || perAccount < 1 {
		return []store.BalancePoint{}, nil
	}
	in, args := inList(ids)
	return list(ctx, q, "balance history", func(r rowScanner) (store.BalancePoint, error) {
		var p store.BalancePoint
		err := r.Scan(&p.AccountID, &p.EntryID, at(&p.At), &p.Balance)
		return p, err
	}, fmt.Sprintf(overviewLedger, in), append(args, perAccount-1)...)
}
