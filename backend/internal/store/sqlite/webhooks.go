package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func (q queries) Webhook(ctx context.Context, accountID int64) (store.Webhook, error) {
	w := store.Webhook{AccountID: accountID}
	var updated string
	err := q.q.QueryRowContext(ctx, `SELECT url, secret, updated_at FROM webhooks WHERE account_id = ?`, accountID).
		Scan(&w.URL, &w.Secret, &updated)
	if err != nil {
		return store.Webhook{}, fmt.Errorf("sqlite: webhook of account %d: %w", accountID, mapError(err))
	}
	if w.UpdatedAt, err = parseTime(updated); err != nil {
		return store.Webhook{}, err
	}
	return w, nil
}

func (q queries) SetWebhook(ctx context.Context, w store.Webhook) error {
	_, err := q.q.ExecContext(ctx, `INSERT INTO webhooks (account_id, url, secret, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, updated_at = excluded.updated_at`,
		w.AccountID, w.URL, w.Secret, formatTime(w.UpdatedAt))
	if err != nil {
		return fmt.Errorf("sqlite: set webhook of account %d: %w", w.AccountID, mapError(err))
	}
	return nil
}

func (q queries) DeleteWebhook(ctx context.Context, accountID int64) error {
	if _, err := q.q.ExecContext(ctx, `DELETE FROM webhooks WHERE account_id = ?`, accountID); err != nil {
		return fmt.Errorf("sqlite: delete webhook of account %d: %w", accountID, err)
	}
	return nil
}

const deliveryColumns = `id, event_id, account_id, event, body, status, attempts, next_at, last_status, last_error,
	created_at, finished_at`

func scanDelivery(r rowScanner) (store.Delivery, error) {
	var d store.Delivery
	var ts timeScanner
	err := r.Scan(&d.ID, &d.EventID, &d.AccountID, &d.Event, &d.Body, &d.Status, &d.Attempts, ts.at(&d.NextAt),
		&d.LastStatus, &d.LastError, ts.at(&d.CreatedAt), ts.at(&d.FinishedAt))
	if err != nil {
		return store.Delivery{}, mapError(err)
	}
	if err := ts.parse(); err != nil {
		return store.Delivery{}, err
	}
	return d, nil
}

func (q queries) AddDelivery(ctx context.Context, d store.Delivery) error {
	_, err := q.q.ExecContext(ctx, `INSERT INTO deliveries (id, event_id, account_id, event, body, status, attempts, next_at,
		last_status, last_error, created_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.EventID, d.AccountID, d.Event, d.Body, d.Status, d.Attempts, formatTime(d.NextAt), d.LastStatus, d.LastError,
		formatTime(d.CreatedAt), nullTime(d.FinishedAt))
	if err != nil {
		return fmt.Errorf("sqlite: add delivery: %w", mapError(err))
	}
	return nil
}

func (q queries) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]store.Delivery, error) {
	return q.listDeliveries(ctx, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE status = ? AND next_at <= ? AND (lease_until IS NULL OR lease_until <= ?) ORDER BY next_at, rowid LIMIT ?`,
		store.DeliveryPending, formatTime(now), formatTime(now), limit)
}

func (q queries) ClaimDelivery(ctx context.Context, id string, now, until time.Time) (bool, error) {
	res, err := q.q.ExecContext(ctx, `UPDATE deliveries SET lease_until = ?
		WHERE id = ? AND status = ? AND next_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`,
		formatTime(until), id, store.DeliveryPending, formatTime(now), formatTime(now))
	if err != nil {
		return false, fmt.Errorf("sqlite: claim delivery %s: %w", id, mapError(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: claim delivery %s: %w", id, err)
	}
	return n == 1, nil
}

func (q queries) UpdateDelivery(ctx context.Context, d store.Delivery) error {
	res, err := q.q.ExecContext(ctx, `UPDATE deliveries SET status = ?, attempts = ?, next_at = ?, last_status = ?,
		last_error = ?, finished_at = ?, lease_until = NULL WHERE id = ?`,
		d.Status, d.Attempts, formatTime(d.NextAt), d.LastStatus, d.LastError, nullTime(d.FinishedAt), d.ID)
	if err != nil {
		return fmt.Errorf("sqlite: update delivery %s: %w", d.ID, mapError(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: update delivery %s: %w", d.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("sqlite: update delivery %s: %w", d.ID, store.ErrNotFound)
	}
	return nil
}

func (q queries) Deliveries(ctx context.Context, accountID int64) ([]store.Delivery, error) {
	return q.listDeliveries(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE account_id = ? ORDER BY created_at, rowid`, accountID)
}

func (q queries) listDeliveries(ctx context.Context, query string, args ...any) ([]store.Delivery, error) {
	rows, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list deliveries: %w", err)
	}
	defer rows.Close()
	out := []store.Delivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: scan delivery: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list deliveries: %w", err)
	}
	return out, nil
}

func (q queries) WatchedAccounts(ctx context.Context) ([]int64, error) {
	rows, err := q.q.QueryContext(ctx, `SELECT account_id FROM instances WHERE active = 1 AND renew = 1
		UNION SELECT account_id FROM snapshots WHERE status IN `+billedSnapshot+`
		UNION SELECT id FROM accounts WHERE low_balance_alert != 0
		ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: watched accounts: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: scan watched account: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: watched accounts: %w", err)
	}
	return out, nil
}

func (q queries) SetLowBalanceAlert(ctx context.Context, id int64, from, to int) error {
	res, err := q.q.ExecContext(ctx, `UPDATE accounts SET low_balance_alert = ? WHERE id = ? AND low_balance_alert = ?`, to, id, from)
	return guarded(res, err, "set low-balance alert of account", id)
}
