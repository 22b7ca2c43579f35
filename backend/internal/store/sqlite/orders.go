package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const orderColumns = `id, account_id, status, price_micros, created_at, plan_id, template_id, snapshot_id, hostname,
	features, apps, app_inputs, ticket, lease_until, finished_at, COALESCE(instance_id, 0), reference`

func scanOrder(r rowScanner) (store.Order, error) {
	var o store.Order
	var features, apps, inputs string
	var ts timeScanner
	err := r.Scan(&o.ID, &o.AccountID, &o.Status, &o.Price, ts.at(&o.CreatedAt), &o.PlanID, &o.TemplateID, &o.SnapshotID,
		&o.Hostname, &features, &apps, &inputs, &o.Ticket, ts.at(&o.LeaseUntil), ts.at(&o.FinishedAt), &o.InstanceID, &o.Reference)
	if err != nil {
		return store.Order{}, mapError(err)
	}
	if err := ts.parse(); err != nil {
		return store.Order{}, err
	}
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
	err = q.q.QueryRowContext(ctx, `INSERT INTO orders (account_id, status, price_micros, created_at, plan_id, template_id,
		snapshot_id, hostname, features, apps, app_inputs, ticket, finished_at, reference)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		o.AccountID, o.Status, o.Price, formatTime(o.CreatedAt), o.PlanID, o.TemplateID, o.SnapshotID, o.Hostname,
		features, apps, inputs, o.Ticket, nullTime(o.FinishedAt), o.Reference).Scan(&o.ID)
	if err != nil {
		return store.Order{}, fmt.Errorf("sqlite: create order: %w", mapError(err))
	}
	return o, nil
}

func (q queries) Order(ctx context.Context, accountID, id int64) (store.Order, error) {
	o, err := scanOrder(q.q.QueryRowContext(ctx, `SELECT `+orderColumns+` FROM orders WHERE id = ? AND account_id = ?`, id, accountID))
	if err != nil {
		return store.Order{}, fmt.Errorf("sqlite: order %d: %w", id, err)
	}
	return o, nil
}

func (q queries) OrderByID(ctx context.Context, id int64) (store.Order, error) {
	o, err := scanOrder(q.q.QueryRowContext(ctx, `SELECT `+orderColumns+` FROM orders WHERE id = ?`, id))
	if err != nil {
		return store.Order{}, fmt.Errorf("sqlite: order %d: %w", id, err)
	}
	return o, nil
}

func (q queries) RecentOrders(ctx context.Context, accountID int64, since time.Time) ([]store.Order, error) {
	return q.listOrders(ctx, `SELECT `+orderColumns+` FROM orders
		WHERE account_id = ? AND (status = ? OR finished_at > ?) ORDER BY id DESC`,
		accountID, store.OrderPending, formatTime(since))
}

func (q queries) DueOrders(ctx context.Context, now time.Time, limit int) ([]store.Order, error) {
	return q.listOrders(ctx, `SELECT `+orderColumns+` FROM orders
		WHERE status = ? AND (lease_until IS NULL OR lease_until <= ?) ORDER BY id LIMIT ?`,
		store.OrderPending, formatTime(now), limit)
}

func (q queries) listOrders(ctx context.Context, query string, args ...any) ([]store.Order, error) {
	rows, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list orders: %w", err)
	}
	defer rows.Close()
	out := []store.Order{}
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: scan order: %w", err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list orders: %w", err)
	}
	return out, nil
}

func (q queries) ClaimOrder(ctx context.Context, id int64, now, until time.Time) (bool, error) {
	res, err := q.q.ExecContext(ctx, `UPDATE orders SET lease_until = ?
		WHERE id = ? AND status = ? AND (lease_until IS NULL OR lease_until <= ?)`,
		formatTime(until), id, store.OrderPending, formatTime(now))
	return claimed(res, err, "claim order", id)
}

func (q queries) ReleaseOrder(ctx context.Context, id int64) error {
	res, err := q.q.ExecContext(ctx, `UPDATE orders SET lease_until = NULL WHERE id = ?`, id)
	return checkOneRow(res, err, "release order", id)
}

func (q queries) SetOrderTicket(ctx context.Context, id int64, ticket string) error {
	res, err := q.q.ExecContext(ctx, `UPDATE orders SET ticket = ? WHERE id = ? AND status = ?`, ticket, id, store.OrderPending)
	return guarded(res, err, "set ticket of order", id)
}

func (q queries) FinishOrder(ctx context.Context, id int64, status string, at time.Time, instanceID int64, reference string) error {
	var inst any
	if instanceID != 0 {
		inst = instanceID
	}
	res, err := q.q.ExecContext(ctx, `UPDATE orders SET status = ?, finished_at = ?, instance_id = ?, reference = ?, lease_until = NULL
		WHERE id = ? AND status = ?`, status, formatTime(at), inst, reference, id, store.OrderPending)
	return guarded(res, err, "finish order", id)
}

// claimed reports whether a guarded UPDATE took the row.
func claimed(res interface{ RowsAffected() (int64, error) }, err error, what string, id int64) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("sqlite: %s %d: %w", what, id, mapError(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: %s %d: %w", what, id, err)
	}
	return n == 1, nil
}

// guarded turns a guarded UPDATE that matched nothing into ErrConflict: the row moved on.
func guarded(res interface{ RowsAffected() (int64, error) }, err error, what string, id int64) error {
	ok, err := claimed(res, err, what, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("sqlite: %s %d: %w", what, id, store.ErrConflict)
	}
	return nil
}

func (q queries) IdempotencyKey(ctx context.Context, accountID int64, key string) (store.IdempotencyKey, error) {
	k := store.IdempotencyKey{AccountID: accountID, Key: key}
	var created string
	err := q.q.QueryRowContext(ctx, `SELECT request_hash, order_id, created_at FROM idempotency_keys
		WHERE account_id = ? AND key = ?`, accountID, key).Scan(&k.RequestHash, &k.OrderID, &created)
	if err != nil {
		return store.IdempotencyKey{}, fmt.Errorf("sqlite: idempotency key: %w", mapError(err))
	}
	if k.CreatedAt, err = parseTime(created); err != nil {
		return store.IdempotencyKey{}, err
	}
	return k, nil
}

func (q queries) AddIdempotencyKey(ctx context.Context, k store.IdempotencyKey) error {
	_, err := q.q.ExecContext(ctx, `INSERT INTO idempotency_keys (account_id, key, request_hash, order_id, created_at)
		VALUES (?, ?, ?, ?, ?)`, k.AccountID, k.Key, k.RequestHash, k.OrderID, formatTime(k.CreatedAt))
	if err != nil {
		return fmt.Errorf("sqlite: add idempotency key: %w", mapError(err))
	}
	return nil
}

func (q queries) DeleteIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	res, err := q.q.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at <= ?`, formatTime(before))
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete idempotency keys: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete idempotency keys: %w", err)
	}
	return n, nil
}
