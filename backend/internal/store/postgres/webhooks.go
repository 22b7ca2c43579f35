package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

func (q queries) Webhook(ctx context.Context, accountID int64) (store.Webhook, error) {
	w := store.Webhook{AccountID: accountID}
	var ts timeScanner
	err := q.q.QueryRow(ctx, `SELECT url, secret, updated_at FROM webhooks WHERE account_id = $1`, accountID).
		Scan(&w.URL, &w.Secret, ts.at(&w.UpdatedAt))
	if err != nil {
		return store.Webhook{}, fmt.Errorf("postgres: webhook of account %d: %w", accountID, mapError(err))
	}
	ts.parse()
	return w, nil
}

func (q queries) SetWebhook(ctx context.Context, w store.Webhook) error {
	if err := q.lockAccount(ctx, w.AccountID); err != nil {
		return err
	}
	_, err := q.q.Exec(ctx, `INSERT INTO webhooks (account_id, url, secret, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, updated_at = excluded.updated_at`,
		w.AccountID, w.URL, w.Secret, w.UpdatedAt.UTC())
	if err != nil {
		return fmt.Errorf("postgres: set webhook of account %d: %w", w.AccountID, mapError(err))
	}
	return nil
}

func (q queries) DeleteWebhook(ctx context.Context, accountID int64) error {
	if err := q.lockAccount(ctx, accountID); err != nil {
		return err
	}
	if _, err := q.q.Exec(ctx, `DELETE FROM webhooks WHERE account_id = $1`, accountID); err != nil {
		return fmt.Errorf("postgres: delete webhook of account %d: %w", accountID, err)
	}
	return nil
}

const deliveryColumns = `id, event_id, account_id, event, body, status, attempts, next_at, last_status, last_error,
	created_at, finished_at`

func scanDelivery(r pgx.Row) (store.Delivery, error) {
	var d store.Delivery
	var ts timeScanner
	err := r.Scan(&d.ID, &d.EventID, &d.AccountID, &d.Event, &d.Body, &d.Status, &d.Attempts, ts.at(&d.NextAt),
		&d.LastStatus, &d.LastError, ts.at(&d.CreatedAt), ts.at(&d.FinishedAt))
	if err != nil {
		return store.Delivery{}, mapError(err)
	}
	ts.parse()
	return d, nil
}

func (q queries) AddDelivery(ctx context.Context, d store.Delivery) error {
	if err := q.lockAccount(ctx, d.AccountID); err != nil {
		return err
	}
	_, err := q.q.Exec(ctx, `INSERT INTO deliveries (id, event_id, account_id, event, body, status, attempts, next_at,
		last_status, last_error, created_at, finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		d.ID, d.EventID, d.AccountID, d.Event, d.Body, d.Status, d.Attempts, d.NextAt.UTC(), d.LastStatus, d.LastError,
		d.CreatedAt.UTC(), nullTime(d.FinishedAt))
	if err != nil {
		return fmt.Errorf("postgres: add delivery: %w", mapError(err))
	}
	return nil
}

func (q queries) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]store.Delivery, error) {
	return q.listDeliveries(ctx, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE status = $1 AND next_at <= $2 AND (lease_until IS NULL OR lease_until <= $2) ORDER BY next_at, seq LIMIT $3`+skipLocked,
		store.DeliveryPending, now.UTC(), limit)
}

// ClaimDelivery takes the lease with a guarded UPDATE, like ClaimOrder.
func (q queries) ClaimDelivery(ctx context.Context, id string, now, until time.Time) (bool, error) {
	tag, err := q.q.Exec(ctx, `UPDATE deliveries SET lease_until = $1
		WHERE id = $2 AND status = $3 AND next_at <= $4 AND (lease_until IS NULL OR lease_until <= $4)`,
		until.UTC(), id, store.DeliveryPending, now.UTC())
	if err != nil {
		return false, fmt.Errorf("postgres: claim delivery %s: %w", id, mapError(err))
	}
	return tag.RowsAffected() == 1, nil
}

func (q queries) UpdateDelivery(ctx context.Context, d store.Delivery) error {
	if err := q.lockAccount(ctx, d.AccountID); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE deliveries SET status = $1, attempts = $2, next_at = $3, last_status = $4,
		last_error = $5, finished_at = $6, lease_until = NULL WHERE id = $7`,
		d.Status, d.Attempts, d.NextAt.UTC(), d.LastStatus, d.LastError, nullTime(d.FinishedAt), d.ID)
	if err != nil {
		return fmt.Errorf("postgres: update delivery %s: %w", d.ID, mapError(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: update delivery %s: %w", d.ID, store.ErrNotFound)
	}
	return nil
}

func (q queries) Deliveries(ctx context.Context, accountID int64) ([]store.Delivery, error) {
	return q.listDeliveries(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE account_id = $1 ORDER BY created_at, seq`, accountID)
}

func (q queries) listDeliveries(ctx context.Context, query string, args ...any) ([]store.Delivery, error) {
	rows, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list deliveries: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (store.Delivery, error) { return scanDelivery(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list deliveries: %w", err)
	}
	return out, nil
}

func (q queries) WatchedAccounts(ctx context.Context) ([]int64, error) {
	rows, err := q.q.Query(ctx, `SELECT account_id FROM instances WHERE active AND renew
		UNION SELECT account_id FROM snapshots WHERE status IN `+billedSnapshot+`
		UNION SELECT id FROM accounts WHERE low_balance_alert != 0
		ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("postgres: watched accounts: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (int64, error) {
		var id int64
		err := r.Scan(&id)
		return id, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: watched accounts: %w", err)
	}
	return out, nil
}

func (q queries) SetLowBalanceAlert(ctx context.Context, id int64, from, to int) error {
	if err := q.lockAccount(ctx, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE accounts SET low_balance_alert = $1 WHERE id = $2 AND low_balance_alert = $3`, to, id, from)
	return guarded(tag, err, "set low-balance alert of account", id)
}
