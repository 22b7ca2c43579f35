package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const orderColumns = `id, account_id, status, price_micros, created_at, plan_id, template_id, snapshot_id, hostname,
	features, apps, app_inputs, ticket, lease_until, finished_at, COALESCE(instance_id, 0), reference`

// skipLocked ends a worker's list of candidates: rows another transaction holds right now are
// left out rather than waited for (the package comment says why).
const skipLocked = ` FOR UPDATE SKIP LOCKED`

func scanOrder(r pgx.Row) (store.Order, error) {
	var o store.Order
	var features, apps, inputs string
	var ts timeScanner
	err := r.Scan(&o.ID, &o.AccountID, &o.Status, &o.Price, ts.at(&o.CreatedAt), &o.PlanID, &o.TemplateID, &o.SnapshotID,
		&o.Hostname, &features, &apps, &inputs, &o.Ticket, ts.at(&o.LeaseUntil), ts.at(&o.FinishedAt), &o.InstanceID, &o.Reference)
	if err != nil {
		return store.Order{}, mapError(err)
	}
	ts.parse()
	if err := fromJSON(features, &o.Features); err != nil {
		return store.Order{}, err
	}
	if err := fromJSON(apps, &o.Apps); err != nil {
		return store.Order{}, err
	}
	if err := fromJSON(inputs, &o.AppInputs); err != nil {
		return store.Order{}, err
	}
	return o, nil
}

func (q queries) CreateOrder(ctx context.Context, o store.Order) (store.Order, error) {
	features, err := jsonText(o.Features, "[]")
	if err != nil {
		return store.Order{}, err
	}
	apps, err := jsonText(o.Apps, "[]")
	if err != nil {
		return store.Order{}, err
	}
	inputs, err := jsonText(o.AppInputs, "{}")
	if err != nil {
		return store.Order{}, err
	}
	if err := q.lockAccount(ctx, o.AccountID); err != nil {
		return store.Order{}, err
	}
	err = q.q.QueryRow(ctx, `INSERT INTO orders (account_id, status, price_micros, created_at, plan_id, template_id,
		snapshot_id, hostname, features, apps, app_inputs, ticket, finished_at, reference)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`,
		o.AccountID, o.Status, o.Price, o.CreatedAt.UTC(), o.PlanID, o.TemplateID, o.SnapshotID, o.Hostname,
		features, apps, inputs, o.Ticket, nullTime(o.FinishedAt), o.Reference).Scan(&o.ID)
	if err != nil {
		return store.Order{}, fmt.Errorf("postgres: create order: %w", mapError(err))
	}
	return o, nil
}

func (q queries) Order(ctx context.Context, accountID, id int64) (store.Order, error) {
	if err := q.lockOwner(ctx, tableOrders, id); err != nil {
		return store.Order{}, err
	}
	o, err := scanOrder(q.q.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE id = $1 AND account_id = $2`+q.rowLock(), id, accountID))
	if err != nil {
		return store.Order{}, fmt.Errorf("postgres: order %d: %w", id, err)
	}
	return o, nil
}

func (q queries) OrderByID(ctx context.Context, id int64) (store.Order, error) {
	if err := q.lockOwner(ctx, tableOrders, id); err != nil {
		return store.Order{}, err
	}
	o, err := scanOrder(q.q.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders WHERE id = $1`+q.rowLock(), id))
	if err != nil {
		return store.Order{}, fmt.Errorf("postgres: order %d: %w", id, err)
	}
	return o, nil
}

func (q queries) RecentOrders(ctx context.Context, accountID int64, since time.Time) ([]store.Order, error) {
	return q.listOrders(ctx, `SELECT `+orderColumns+` FROM orders
		WHERE account_id = $1 AND (status = $2 OR finished_at > $3) ORDER BY id DESC`,
		accountID, store.OrderPending, since.UTC())
}

func (q queries) DueOrders(ctx context.Context, now time.Time, limit int) ([]store.Order, error) {
	return q.listOrders(ctx, `SELECT `+orderColumns+` FROM orders
		WHERE status = $1 AND (lease_until IS NULL OR lease_until <= $2) ORDER BY id LIMIT $3`+skipLocked,
		store.OrderPending, now.UTC(), limit)
}

func (q queries) listOrders(ctx context.Context, query string, args ...any) ([]store.Order, error) {
	rows, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list orders: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (store.Order, error) { return scanOrder(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list orders: %w", err)
	}
	return out, nil
}

// ClaimOrder takes the lease with a guarded UPDATE. A claimer that waited for a concurrent
// claim sees the guard evaluated on the row that claim committed, so only one of them wins.
func (q queries) ClaimOrder(ctx context.Context, id int64, now, until time.Time) (bool, error) {
	if err := q.lockOwner(ctx, tableOrders, id); err != nil {
		return false, err
	}
	tag, err := q.q.Exec(ctx, `UPDATE orders SET lease_until = $1
		WHERE id = $2 AND status = $3 AND (lease_until IS NULL OR lease_until <= $4)`,
		until.UTC(), id, store.OrderPending, now.UTC())
	return claimed(tag, err, "claim order", id)
}

func (q queries) ReleaseOrder(ctx context.Context, id int64) error {
	if err := q.lockOwner(ctx, tableOrders, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE orders SET lease_until = NULL WHERE id = $1`, id)
	return checkOneRow(tag, err, "release order", id)
}

func (q queries) SetOrderTicket(ctx context.Context, id int64, ticket string) error {
	if err := q.lockOwner(ctx, tableOrders, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE orders SET ticket = $1 WHERE id = $2 AND status = $3`, ticket, id, store.OrderPending)
	return guarded(tag, err, "set ticket of order", id)
}

func (q queries) FinishOrder(ctx context.Context, id int64, status string, at time.Time, instanceID int64, reference string) error {
	var inst any
	if instanceID != 0 {
		inst = instanceID
	}
	if err := q.lockOwner(ctx, tableOrders, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE orders SET status = $1, finished_at = $2, instance_id = $3, reference = $4, lease_until = NULL
		WHERE id = $5 AND status = $6`, status, at.UTC(), inst, reference, id, store.OrderPending)
	return guarded(tag, err, "finish order", id)
}

// claimed reports whether a guarded UPDATE took the row.
func claimed(tag pgconn.CommandTag, err error, what string, id int64) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("postgres: %s %d: %w", what, id, mapError(err))
	}
	return tag.RowsAffected() == 1, nil
}

// guarded turns a guarded UPDATE that matched nothing into ErrConflict: the row moved on.
func guarded(tag pgconn.CommandTag, err error, what string, id int64) error {
	ok, err := claimed(tag, err, what, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("postgres: %s %d: %w", what, id, store.ErrConflict)
	}
	return nil
}

// IdempotencyKey reads a key; in a transaction it first locks the account, so a request
// repeating a key another replica is still committing waits for that commit and then finds
// the key (and replays its order) instead of missing it and failing on the unique key.
func (q queries) IdempotencyKey(ctx context.Context, accountID int64, key string) (store.IdempotencyKey, error) {
	if err := q.lockAccount(ctx, accountID); err != nil {
		return store.IdempotencyKey{}, err
	}
	k := store.IdempotencyKey{AccountID: accountID, Key: key}
	var ts timeScanner
	err := q.q.QueryRow(ctx, `SELECT request_hash, order_id, created_at FROM idempotency_keys
		WHERE account_id = $1 AND key = $2`, accountID, key).Scan(&k.RequestHash, &k.OrderID, ts.at(&k.CreatedAt))
	if err != nil {
		return store.IdempotencyKey{}, fmt.Errorf("postgres: idempotency key: %w", mapError(err))
	}
	ts.parse()
	return k, nil
}

func (q queries) AddIdempotencyKey(ctx context.Context, k store.IdempotencyKey) error {
	if err := q.lockAccount(ctx, k.AccountID); err != nil {
		return err
	}
	_, err := q.q.Exec(ctx, `INSERT INTO idempotency_keys (account_id, key, request_hash, order_id, created_at)
		VALUES ($1, $2, $3, $4, $5)`, k.AccountID, k.Key, k.RequestHash, k.OrderID, k.CreatedAt.UTC())
	if err != nil {
		return fmt.Errorf("postgres: add idempotency key: %w", mapError(err))
	}
	return nil
}

// DeleteIdempotencyKeys purges expired keys of every account; it locks no account, so it is the
// one write that may meet another purge in a deadlock, which WithTx retries.
func (q queries) DeleteIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	tag, err := q.q.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at <= $1`, before.UTC())
	if err != nil {
		return 0, fmt.Errorf("postgres: delete idempotency keys: %w", err)
	}
	return tag.RowsAffected(), nil
}
