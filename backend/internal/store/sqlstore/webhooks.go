package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const webhookColumns = `account_id, url, secret, updated_at`

// scanWebhook reads a webhook and opens its secret.
func (q queries) scanWebhook(r rowScanner) (store.Webhook, error) {
	var w store.Webhook
	if err := r.Scan(&w.AccountID, &w.URL, &w.Secret, at(&w.UpdatedAt)); err != nil {
		return store.Webhook{}, err
	}
	secret, err := q.open(webhookSecret, w.AccountID, w.AccountID, w.Secret)
	w.Secret = secret
	return w, err
}

func (q queries) Webhook(ctx context.Context, accountID int64) (store.Webhook, error) {
	w, err := q.scanWebhook(q.queryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE account_id = ?`, accountID))
	if err != nil {
		return store.Webhook{}, fmt.Errorf("sqlstore: webhook of account %d: %w", accountID, err)
	}
	return w, nil
}

// Webhooks reads the registrations of the accounts with one statement.
func (q queries) Webhooks(ctx context.Context, accountIDs []int64) (map[int64]store.Webhook, error) {
	out := map[int64]store.Webhook{}
	ids := slices.Compact(slices.Sorted(slices.Values(accountIDs)))
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	hooks, err := list(ctx, q, "webhooks", q.scanWebhook, `SELECT `+webhookColumns+` FROM webhooks WHERE account_id IN `+in, args...)
	if err != nil {
		return nil, err
	}
	for _, w := range hooks {
		out[w.AccountID] = w
	}
	return out, nil
}

func (q queries) SetWebhook(ctx context.Context, w store.Webhook) error {
	secret, err := q.seal(webhookSecret, w.AccountID, w.AccountID, w.Secret) // the account is the row: known before the INSERT
	if err != nil {
		return err
	}
	if err := q.lockAccount(ctx, w.AccountID); err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO webhooks (account_id, url, secret, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, updated_at = excluded.updated_at`,
		w.AccountID, w.URL, secret, w.UpdatedAt)
	if err != nil {
		return fmt.Errorf("sqlstore: set webhook of account %d: %w", w.AccountID, err)
	}
	return nil
}

func (q queries) DeleteWebhook(ctx context.Context, accountID int64) error {
	if err := q.lockAccount(ctx, accountID); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM webhooks WHERE account_id = ?`, accountID); err != nil {
		return fmt.Errorf("sqlstore: delete webhook of account %d: %w", accountID, err)
	}
	return nil
}

const deliveryColumns = `id, event_id, account_id, event, body, status, attempts, next_at, last_status, last_error,
	created_at, finished_at`

func scanDelivery(r rowScanner) (store.Delivery, error) {
	var d store.Delivery
	err := r.Scan(&d.ID, &d.EventID, &d.AccountID, &d.Event, &d.Body, &d.Status, &d.Attempts, at(&d.NextAt),
		&d.LastStatus, &d.LastError, at(&d.CreatedAt), at(&d.FinishedAt))
	return d, err
}

// AddDelivery writes one delivery: AddDeliveries of one.
func (q queries) AddDelivery(ctx context.Context, d store.Delivery) error {
	return q.AddDeliveries(ctx, []store.Delivery{d})
}

// AddDeliveries writes the deliveries with one statement, after locking their accounts.
func (q queries) AddDeliveries(ctx context.Context, ds []store.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	accounts := make([]int64, len(ds))
	args := make([]any, 0, 12*len(ds))
	for i, d := range ds {
		accounts[i] = d.AccountID
		args = append(args, d.ID, d.EventID, d.AccountID, d.Event, d.Body, d.Status, d.Attempts, d.NextAt, d.LastStatus,
			d.LastError, d.CreatedAt, nullTime(d.FinishedAt))
	}
	if err := q.lockAccounts(ctx, accounts); err != nil {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO deliveries (id, event_id, account_id, event, body, status, attempts, next_at,
		last_status, last_error, created_at, finished_at) VALUES `+valuesRows(12, len(ds)), args...)
	if err != nil {
		return fmt.Errorf("sqlstore: add %d deliveries: %w", len(ds), err)
	}
	return nil
}

func (q queries) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]store.Delivery, error) {
	return q.DueDeliveriesExcept(ctx, now, limit, nil)
}

// DueDeliveriesExcept is DueDeliveries without the accounts in skip (a handful: those whose
// attempts in flight are at their bound, see service.DeliverDue).
func (q queries) DueDeliveriesExcept(ctx context.Context, now time.Time, limit int, skip []int64) ([]store.Delivery, error) {
	args := []any{store.DeliveryPending, now, now}
	notIn := ""
	if len(skip) > 0 {
		notIn = ` AND account_id NOT IN (?` + strings.Repeat(", ?", len(skip)-1) + `)`
		for _, id := range skip {
			args = append(args, id)
		}
	}
	return list(ctx, q, "deliveries", scanDelivery, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE status = ? AND next_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`+notIn+` ORDER BY next_at, `+seqToken+
		` LIMIT ?`+q.workerLock(skipLocked), append(args, limit)...)
}

// ClaimDelivery takes the lease with a guarded UPDATE, like ClaimOrder.
func (q queries) ClaimDelivery(ctx context.Context, id string, now, until time.Time) (bool, error) {
	res, err := q.exec(ctx, `UPDATE deliveries SET lease_until = ?
		WHERE id = ? AND status = ? AND next_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`,
		until, id, store.DeliveryPending, now, now)
	return claimed(res, err, "claim delivery", id)
}

func (q queries) UpdateDelivery(ctx context.Context, d store.Delivery) error {
	if err := q.lockAccount(ctx, d.AccountID); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE deliveries SET status = ?, attempts = ?, next_at = ?, last_status = ?,
		last_error = ?, finished_at = ?, lease_until = NULL WHERE id = ?`,
		d.Status, d.Attempts, d.NextAt, d.LastStatus, d.LastError, nullTime(d.FinishedAt), d.ID)
	return checkOneRow(res, err, "update delivery", d.ID)
}

func (q queries) Deliveries(ctx context.Context, accountID int64) ([]store.Delivery, error) {
	return list(ctx, q, "deliveries", scanDelivery, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE account_id = ? ORDER BY created_at, `+seqToken, accountID)
}
