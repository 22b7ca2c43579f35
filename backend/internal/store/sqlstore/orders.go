package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const orderColumns = `id, account_id, status, price_micros, created_at, plan_id, template_id, snapshot_id, hostname,
	features, apps, app_inputs, ticket, lease_until, finished_at, COALESCE(instance_id, 0), reference`

// scanOrder reads an order and opens its app inputs.
func (q queries) scanOrder(r rowScanner) (store.Order, error) {
	var o store.Order
	var inputs string
	err := r.Scan(&o.ID, &o.AccountID, &o.Status, &o.Price, at(&o.CreatedAt), &o.PlanID, &o.TemplateID, &o.SnapshotID,
		&o.Hostname, jsonColumn{&o.Features}, jsonColumn{&o.Apps}, &inputs, &o.Ticket,
		at(&o.LeaseUntil), at(&o.FinishedAt), &o.InstanceID, &o.Reference)
	if err != nil {
		return store.Order{}, err
	}
	return o, q.openJSON(orderAppInputs, o.ID, o.AccountID, inputs, &o.AppInputs)
}

// createOrder writes o as it is, status and price included, and counts it on its account,
// without the admission PlaceOrder applies: it is the write step of placeOrderInSteps, which has
// checked the account's counts first, and the fixture storetest and this package's tests set up
// orders with that no client could place (past its account's limits, or already deployed). The
// store's interface has no such write, so the service cannot skip the rules.
func (q queries) createOrder(ctx context.Context, o store.Order) (store.Order, error) {
	args, err := q.orderArgs(o)
	if err != nil {
		return store.Order{}, err
	}
	if err := q.lockAccount(ctx, o.AccountID); err != nil {
		return store.Order{}, err
	}
	if err = q.queryRow(ctx, insertOrder, args...).Scan(&o.ID); err != nil {
		return store.Order{}, fmt.Errorf("sqlstore: create order: %w", err)
	}
	if err := q.sealOrderInputs(ctx, o); err != nil {
		return store.Order{}, err
	}
	if _, err := q.exec(ctx, countOrder, orderCountArgs(o)...); err != nil {
		return store.Order{}, fmt.Errorf("sqlstore: count order of account %d: %w", o.AccountID, err)
	}
	return o, nil
}

// orderArgs are the values of a new order o in the order of newOrderColumns. Its app inputs are
// the insertValue: with a key, sealOrderInputs seals them once the order has its id.
func (q queries) orderArgs(o store.Order) ([]any, error) {
	features, err := jsonText(o.Features, "[]")
	if err != nil {
		return nil, err
	}
	apps, err := jsonText(o.Apps, "[]")
	if err != nil {
		return nil, err
	}
	inputs, err := q.insertJSON(orderAppInputs, o.AppInputs)
	if err != nil {
		return nil, err
	}
	return []any{o.AccountID, o.Status, o.Price, o.CreatedAt, o.PlanID, o.TemplateID, o.SnapshotID, o.Hostname,
		features, apps, inputs, o.Ticket, nullTime(o.FinishedAt), o.Reference}, nil
}

// sealOrderInputs seals the app inputs of the new order o, in the transaction that wrote it.
func (q queries) sealOrderInputs(ctx context.Context, o store.Order) error {
	inputs, err := jsonText(o.AppInputs, orderAppInputs.empty)
	if err != nil {
		return err
	}
	return q.sealInserted(ctx, orderAppInputs, []newSecret{{row: o.ID, owner: o.AccountID, plain: inputs}})
}

// newOrderColumns are the columns a new order is written with (orderArgs).
const newOrderColumns = `account_id, status, price_micros, created_at, plan_id, template_id,
	snapshot_id, hostname, features, apps, app_inputs, ticket, finished_at, reference`

// insertOrder writes a new order and returns its id.
const insertOrder = `INSERT INTO orders (` + newOrderColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

// countOrder counts a new order on its account (orderCountArgs): a pending one in
// orders_pending and its price in orders_reserved_micros, and as a change of the wallet (its
// price is now reserved).
const countOrder = `UPDATE accounts SET wallet_seq = wallet_seq + 1, orders_pending = orders_pending + ?,
	orders_reserved_micros = orders_reserved_micros + ? WHERE id = ?`

// orderCountArgs are the arguments of countOrder for the new order o.
func orderCountArgs(o store.Order) []any {
	var pending int
	var reserved int64
	if o.Status == store.OrderPending {
		pending, reserved = 1, int64(o.Price)
	}
	return []any{pending, reserved, o.AccountID}
}

// OrderTotals reads the account's pending orders and the price they reserve, kept on the
// account by PlaceOrder (countOrder) and orderFinished.
func (q queries) OrderTotals(ctx context.Context, accountID int64) (store.OrderTotals, error) {
	var t store.OrderTotals
	if err := q.lockAccount(ctx, accountID); err != nil {
		return store.OrderTotals{}, err
	}
	err := q.queryRow(ctx, `SELECT orders_pending, orders_reserved_micros FROM accounts WHERE id = ?`, accountID).
		Scan(&t.Pending, &t.Reserved)
	if err != nil {
		return store.OrderTotals{}, fmt.Errorf("sqlstore: order totals: %w", err)
	}
	return t, nil
}

func (q queries) Order(ctx context.Context, accountID, id int64) (store.Order, error) {
	return one(ctx, q, tableOrders, id, q.scanOrder, `SELECT `+orderColumns+` FROM orders WHERE id = ? AND account_id = ?`, id, accountID)
}

func (q queries) OrderByID(ctx context.Context, id int64) (store.Order, error) {
	return one(ctx, q, tableOrders, id, q.scanOrder, `SELECT `+orderColumns+` FROM orders WHERE id = ?`, id)
}

func (q queries) RecentOrders(ctx context.Context, accountID int64, since time.Time, beforeID int64, limit int) ([]store.Order, error) {
	return list(ctx, q, "orders", q.scanOrder, `SELECT `+orderColumns+` FROM orders
		WHERE account_id = ? AND id < ? AND (status = ? OR finished_at > ?) ORDER BY id DESC LIMIT ?`,
		accountID, beforeID, store.OrderPending, since, limit)
}

func (q queries) OrderInstances(ctx context.Context, accountID int64, ids []int64) (map[int64]store.Instance, map[int64][]store.AppInstall, error) {
	byID := map[int64]store.Instance{}
	byInstance := map[int64][]store.AppInstall{}
	if len(ids) == 0 {
		return byID, byInstance, nil
	}
	in, args := inList(ids)
	instances, err := list(ctx, q, "instances of orders", q.scanInstance, `SELECT `+instanceColumns+` FROM instances
		WHERE account_id = ? AND id IN `+in, append([]any{accountID}, args...)...)
	if err != nil {
		return nil, nil, err
	}
	installs, err := list(ctx, q, "app installs of orders", q.scanInstall, `SELECT `+installColumns+` FROM app_installs
		WHERE instance_id IN `+in+` ORDER BY instance_id, position`, args...)
	if err != nil {
		return nil, nil, err
	}
	for _, in := range instances {
		byID[in.ID] = in
	}
	for _, a := range installs {
		byInstance[a.InstanceID] = append(byInstance[a.InstanceID], a)
	}
	return byID, byInstance, nil
}

// inList is "(?, ?, ...)" for ids, and ids as query arguments.
func inList(ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")", args
}

func (q queries) DueOrders(ctx context.Context, now time.Time, limit int) ([]store.Order, error) {
	return list(ctx, q, "orders", q.scanOrder, `SELECT `+orderColumns+` FROM orders
		WHERE status = ? AND (lease_until IS NULL OR lease_until <= ?) ORDER BY id LIMIT ?`+q.workerLock(skipLocked),
		store.OrderPending, now, limit)
}

// FinishOrder reads the order's account (its owner never changes) and finishes it as
// FinishOrders does; ErrConflict for an order that is missing or no longer pending.
func (q queries) FinishOrder(ctx context.Context, id int64, status string, finishedAt time.Time, instanceID int64, reference string) error {
	var owner int64
	err := q.queryRow(ctx, `SELECT account_id FROM orders WHERE id = ?`, id).Scan(&owner)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("sqlstore: finish order %d: %w", id, store.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: finish order %d: %w", id, err)
	}
	return q.FinishOrders(ctx, []store.OrderFinish{{OrderKey: store.OrderKey{ID: id, AccountID: owner}, Status: status,
		InstanceID: instanceID, Reference: reference}}, finishedAt)
}

// IdempotencyKey reads a key; in a PostgreSQL transaction it first locks the account, so a
// request repeating a key another replica is still committing waits for that commit and then
// finds the key (and replays its order) instead of missing it and failing on the unique key.
func (q queries) IdempotencyKey(ctx context.Context, accountID int64, key string) (store.IdempotencyKey, error) {
	if err := q.lockAccount(ctx, accountID); err != nil {
		return store.IdempotencyKey{}, err
	}
	k := store.IdempotencyKey{AccountID: accountID, Key: key}
	err := q.queryRow(ctx, `SELECT request_hash, order_id, created_at FROM idempotency_keys
		WHERE account_id = ? AND key = ?`, accountID, key).Scan(&k.RequestHash, &k.OrderID, at(&k.CreatedAt))
	if err != nil {
		return store.IdempotencyKey{}, fmt.Errorf("sqlstore: idempotency key: %w", err)
	}
	return k, nil
}

// AddIdempotencyKey inserts k, or overwrites the expired record of the same key in the same
// statement, so an order transaction never has to purge expired keys first (housekeeping does,
// see service.HousekeepDue). An unexpired record is left alone and reported as ErrConflict.
func (q queries) AddIdempotencyKey(ctx context.Context, k store.IdempotencyKey, expiredBefore time.Time) error {
	if err := q.lockAccount(ctx, k.AccountID); err != nil {
		return err
	}
	n, err := rowsAffected(q.exec(ctx, `INSERT INTO idempotency_keys (account_id, key, request_hash, order_id, created_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, order_id = excluded.order_id,
			created_at = excluded.created_at
		WHERE idempotency_keys.created_at <= ?`, k.AccountID, k.Key, k.RequestHash, k.OrderID, k.CreatedAt, expiredBefore))
	if err != nil {
		return fmt.Errorf("sqlstore: add idempotency key: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("sqlstore: add idempotency key: %w: the account has it unexpired", store.ErrConflict)
	}
	return nil
}

// DeleteIdempotencyKeys purges expired keys of every account, from housekeeping; it locks no
// account, so on PostgreSQL it may meet another replica's purge in a deadlock, which WithTx
// retries when it runs in a transaction.
func (q queries) DeleteIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	n, err := rowsAffected(q.exec(ctx, `DELETE FROM idempotency_keys WHERE created_at <= ?`, before))
	if err != nil {
		return 0, fmt.Errorf("sqlstore: delete idempotency keys: %w", err)
	}
	return n, nil
}
