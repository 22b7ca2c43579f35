package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// PlaceOrder writes a new pending order, and its idempotency key when key is not nil, if its
// account admits it (store.AccountCounts.Admits), as one step that commits on its own. On
// PostgreSQL that step is one statement (placeOrder), run under its generic plan
// (genericPlans) in the same round trip and, with the orders that arrive at the same time, in
// the transaction of a group (orderGroups); a group waits for a turn as a transaction does
// (turns.takeTx), so that under a load of orders a freed connection goes to what has waited
// longest. On SQLite it is a transaction of the group commit, as every write
// there is, and so it is on PostgreSQL for an order with app inputs when the store has a key:
// their seal is written once the order has its id (see secrets.go).
func (s *Store) PlaceOrder(ctx context.Context, o store.Order, key *store.IdempotencyKey) (store.Order, store.AccountCounts, error) {
	if !s.d.writableCTEs || (s.keys.Seals() && len(o.AppInputs) > 0) { // sealing the inputs takes a second statement
		var placed store.Order
		var c store.AccountCounts
		err := s.WithTx(ctx, func(tx store.Tx) error {
			var err error
			placed, c, err = tx.PlaceOrder(ctx, o, key)
			return err
		})
		return placed, c, err
	}
	return s.queries.PlaceOrder(ctx, o, key)
}

// PlaceOrder writes the new pending order o if its account admits it, counts it on the
// account, and records key (when not nil) as naming it. On PostgreSQL it is one statement
// (placeOrder) rather than BEGIN, reading the counts, writing and COMMIT, four round trips
// (eight with a key) across which the account's row would stay locked: here it stays locked
// only while the statement runs and commits. On SQLite, which has no writes inside WITH, it
// reads the counts, checks them in Go and writes, which is atomic because SQLite runs it in a
// transaction.
func (q queries) PlaceOrder(ctx context.Context, o store.Order, key *store.IdempotencyKey) (store.Order, store.AccountCounts, error) {
	o.Status = store.OrderPending
	if !q.d.writableCTEs {
		return q.placeOrderInSteps(ctx, o, key)
	}
	args, err := q.orderArgs(o)
	if err != nil {
		return store.Order{}, store.AccountCounts{}, err
	}
	args = append(append([]any{o.AccountID}, args...), o.Price)
	args = append(args, orderCountArgs(o)...)
	if key != nil {
		args = append(args, o.AccountID, key.Key, key.RequestHash, o.CreatedAt)
	}
	var c store.AccountCounts
	if err := q.scanPlaced(ctx, o.AccountID, key != nil, args, append(accountCountsDest(&c), &o.ID)); err != nil {
		return store.Order{}, store.AccountCounts{}, fmt.Errorf("sqlstore: place order: %w", err)
	}
	if q.locks != nil {
		q.locks.accounts[o.AccountID] = true
	}
	if o.ID == 0 {
		return store.Order{}, c, fmt.Errorf("sqlstore: place order: %w", store.ErrNotAdmitted)
	}
	if err := q.sealOrderInputs(ctx, o); err != nil {
		return store.Order{}, c, err
	}
	return o, c, nil
}

// scanPlaced runs the statement of a new order of account accountID (placeOrder, or
// placeOrderWithKey when keyed) and scans its row into dest. Where it commits on its own on
// PostgreSQL it runs in a group (orderGroups, as placeOrderInGroup), or alone when its group
// rolled back or passed over its account (genericPlans), under its generic plan either way; in
// a transaction, as any query.
func (q queries) scanPlaced(ctx context.Context, accountID int64, keyed bool, args, dest []any) error {
	statement, inGroup := placeOrder, placeOrderInGroup
	if keyed {
		statement, inGroup = placeOrderWithKey, placeOrderWithKeyInGroup
	}
	if q.generic == nil {
		return q.queryRow(ctx, statement, args...).Scan(dest...)
	}
	q.read(statement, 1)
	args = q.d.args(args)
	if q.groups != nil {
		if err := q.groups.place(ctx, accountID, q.d.sql(inGroup), args, dest); !errors.Is(err, errPlaceAlone) {
			return q.d.storeError(err)
		}
	}
	return q.d.storeError(q.generic.scanRow(ctx, q.d.sql(statement), args, dest))
}

// placeOrderInSteps is PlaceOrder for a transaction on SQLite. A key record that exists,
// expired or not, is a conflict, as on PostgreSQL: no time is at or before the zero time.
func (q queries) placeOrderInSteps(ctx context.Context, o store.Order, key *store.IdempotencyKey) (store.Order, store.AccountCounts, error) {
	c, err := q.AccountCounts(ctx, o.AccountID)
	if err != nil {
		return store.Order{}, store.AccountCounts{}, err
	}
	if !c.Admits(o.Price) {
		return store.Order{}, c, fmt.Errorf("sqlstore: place order: %w", store.ErrNotAdmitted)
	}
	if o, err = q.createOrder(ctx, o); err != nil {
		return store.Order{}, c, err
	}
	if key != nil {
		k := *key
		k.AccountID, k.OrderID, k.CreatedAt = o.AccountID, o.ID, o.CreatedAt
		if err := q.AddIdempotencyKey(ctx, k, time.Time{}); err != nil {
			return store.Order{}, c, err
		}
	}
	return o, c, nil
}

// placeOrder is PlaceOrder in one PostgreSQL statement. a locks the account's row and reads its
// counts (under READ COMMITTED, after waiting for the lock, the newest committed version); o
// writes the order only if admitsOrder holds for them; c counts it on the account only if o
// wrote it (countOrder). The statement returns the counts as they were before the order, and
// the new order's id, 0 when the rules refused it.
const placeOrder = placeOrderLock + forUpdate + placeOrderSteps + placeOrderResult

// placeOrderInGroup is placeOrder as a group of orders sends it (orderGroups): the account's row
// is taken only if no other transaction holds it (SKIP LOCKED; a group's own earlier order of the
// account does not count), and otherwise the statement writes nothing and returns no row. A
// deploy batch holds its accounts' rows for its whole transaction; a group that waited for one
// would hold up every order behind it, of every account of its worker, for that long.
const placeOrderInGroup = placeOrderLock + skipLockedAccount + placeOrderSteps + placeOrderResult

// skipLockedAccount is placeOrderInGroup's lock of the account's row.
const skipLockedAccount = forUpdate + ` SKIP LOCKED`

// placeOrderWithKey is placeOrder that also records the order's idempotency key (k). A record
// of the key, expired or not, breaks the unique key, and the whole statement, order included,
// is undone: ErrConflict.
const placeOrderWithKey = placeOrderLock + forUpdate + placeOrderSteps + placeOrderKey + placeOrderResult

// placeOrderWithKeyInGroup is placeOrderWithKey as a group sends it (see placeOrderInGroup).
const placeOrderWithKeyInGroup = placeOrderLock + skipLockedAccount + placeOrderSteps + placeOrderKey + placeOrderResult

const placeOrderKey = `,
	k AS (INSERT INTO idempotency_keys (account_id, key, request_hash, order_id, created_at)
		SELECT ?, ?, ?, id, ? FROM o)`

const placeOrderLock = `WITH a AS (SELECT ` + accountCountsColumns + ` FROM accounts WHERE id = ?`

const placeOrderSteps = `),
	o AS (INSERT INTO orders (` + newOrderColumns + `)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM a WHERE ` + admitsOrder + ` RETURNING id),
	c AS (` + countOrder + ` AND EXISTS (SELECT 1 FROM o))`

const placeOrderResult = `
	SELECT a.*, COALESCE((SELECT id FROM o), 0) FROM a`

// admitsOrder is store.AccountCounts.Admits in SQL, for an order whose price is its one
// argument; storetest's PlaceOrder test holds the two together at each rule's boundary.
const admitsOrder = `a.instances_active + a.orders_pending < a.server_limit
	AND a.orders_pending < a.order_limit
	AND a.balance_micros - a.orders_reserved_micros >= ?`
