package sqlstore

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// PlaceOrder writes a new pending order if its account admits it (store.AccountCounts.Admits),
// as one step that commits on its own. On PostgreSQL that step is one statement (placeOrder),
// which waits for a turn as a transaction does (plainTx.turns), so that under a load of orders
// a freed connection goes to the statement that has waited longest. On SQLite it is a
// transaction of the group commit, as every write there is.
func (s *Store) PlaceOrder(ctx context.Context, o store.Order) (store.Order, store.AccountCounts, error) {
	if !s.d.writableCTEs {
		var placed store.Order
		var c store.AccountCounts
		err := s.WithTx(ctx, func(tx store.Tx) error {
			var err error
			placed, c, err = tx.PlaceOrder(ctx, o)
			return err
		})
		return placed, c, err
	}
	if err := s.turns.Acquire(ctx, 1); err != nil {
		return store.Order{}, store.AccountCounts{}, fmt.Errorf("sqlstore: wait for a turn: %w", err)
	}
	defer s.turns.Release(1)
	return s.queries.PlaceOrder(ctx, o)
}

// PlaceOrder writes the new pending order o if its account admits it, and counts it on the
// account. On PostgreSQL it is one statement (placeOrder), a quarter of the round trips of
// BEGIN, read the counts, write, COMMIT; the account's row stays locked only while the
// statement runs and commits. On SQLite, which has no writes inside WITH, it reads the counts,
// checks them in Go and writes, which is atomic because SQLite runs it in a transaction.
func (q queries) PlaceOrder(ctx context.Context, o store.Order) (store.Order, store.AccountCounts, error) {
	o.Status = store.OrderPending
	if !q.d.writableCTEs {
		return q.placeOrderInSteps(ctx, o)
	}
	args, err := orderArgs(o)
	if err != nil {
		return store.Order{}, store.AccountCounts{}, err
	}
	var c store.AccountCounts
	args = append(append([]any{o.AccountID}, args...), o.Price)
	args = append(args, orderCountArgs(o)...)
	err = q.queryRow(ctx, placeOrder, args...).Scan(append(accountCountsDest(&c), &o.ID)...)
	if err != nil {
		return store.Order{}, store.AccountCounts{}, fmt.Errorf("sqlstore: place order: %w", err)
	}
	if q.locks != nil {
		q.locks.accounts[o.AccountID] = true
	}
	if o.ID == 0 {
		return store.Order{}, c, fmt.Errorf("sqlstore: place order: %w", store.ErrNotAdmitted)
	}
	return o, c, nil
}

// placeOrderInSteps is PlaceOrder for a transaction on SQLite.
func (q queries) placeOrderInSteps(ctx context.Context, o store.Order) (store.Order, store.AccountCounts, error) {
	c, err := q.AccountCounts(ctx, o.AccountID)
	if err != nil {
		return store.Order{}, store.AccountCounts{}, err
	}
	if !c.Admits(o.Price) {
		return store.Order{}, c, fmt.Errorf("sqlstore: place order: %w", store.ErrNotAdmitted)
	}
	o, err = q.CreateOrder(ctx, o)
	return o, c, err
}

// placeOrder is PlaceOrder in one PostgreSQL statement. a locks the account's row and reads its
// counts (under READ COMMITTED, after waiting for the lock, the newest committed version); o
// writes the order only if admitsOrder holds for them; c counts it on the account only if o
// wrote it (countOrder). The statement returns the counts as they were before the order, and
// the new order's id, 0 when the rules refused it.
const placeOrder = `WITH a AS (SELECT ` + accountCountsColumns + ` FROM accounts WHERE id = ?` + forUpdate + `),
	o AS (INSERT INTO orders (` + newOrderColumns + `)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM a WHERE ` + admitsOrder + ` RETURNING id),
	c AS (` + countOrder + ` AND EXISTS (SELECT 1 FROM o))
	SELECT a.*, COALESCE((SELECT id FROM o), 0) FROM a`

// admitsOrder is store.AccountCounts.Admits in SQL, for an order whose price is its one
// argument; storetest's PlaceOrder test holds the two together at each rule's boundary.
const admitsOrder = `a.instances_active + a.orders_pending < a.server_limit
	AND a.orders_pending < a.order_limit
	AND a.balance_micros - a.orders_reserved_micros >= ?`
