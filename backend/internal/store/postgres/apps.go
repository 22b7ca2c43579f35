package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const installColumns = `id, instance_id, app_id, position, status, stage, attempts, inputs, result, error, log_tail,
	queued_at, started_at, finished_at, next_at`

func scanInstall(r pgx.Row) (store.AppInstall, error) {
	var a store.AppInstall
	var inputs, result string
	var ts timeScanner
	err := r.Scan(&a.ID, &a.InstanceID, &a.AppID, &a.Position, &a.Status, &a.Stage, &a.Attempts, &inputs, &result,
		&a.Error, &a.LogTail, ts.at(&a.QueuedAt), ts.at(&a.StartedAt), ts.at(&a.FinishedAt), ts.at(&a.NextAt))
	if err != nil {
		return store.AppInstall{}, mapError(err)
	}
	ts.parse()
	if err := fromJSON(inputs, &a.Inputs); err != nil {
		return store.AppInstall{}, err
	}
	if err := fromJSON(result, &a.Result); err != nil {
		return store.AppInstall{}, err
	}
	return a, nil
}

// AddAppInstall appends an install to its instance's queue. In a transaction the account lock
// taken first makes the MAX(position) + 1 below safe from a concurrent append.
func (q queries) AddAppInstall(ctx context.Context, a store.AppInstall) (store.AppInstall, error) {
	inputs, err := jsonText(a.Inputs, "{}")
	if err != nil {
		return store.AppInstall{}, err
	}
	result, err := jsonText(a.Result, "{}")
	if err != nil {
		return store.AppInstall{}, err
	}
	if err := q.lockOwner(ctx, tableInstances, a.InstanceID); err != nil {
		return store.AppInstall{}, err
	}
	err = q.q.QueryRow(ctx, `INSERT INTO app_installs (instance_id, app_id, position, status, stage, attempts, inputs,
		result, error, log_tail, queued_at, started_at, finished_at, next_at)
		VALUES ($1, $2, (SELECT COALESCE(MAX(position), 0) + 1 FROM app_installs WHERE instance_id = $1), $3, $4, $5, $6, $7,
		$8, $9, $10, $11, $12, $13)
		RETURNING id, position`,
		a.InstanceID, a.AppID, a.Status, a.Stage, a.Attempts, inputs, result, a.Error, a.LogTail,
		a.QueuedAt.UTC(), nullTime(a.StartedAt), nullTime(a.FinishedAt), a.NextAt.UTC()).Scan(&a.ID, &a.Position)
	if err != nil {
		return store.AppInstall{}, fmt.Errorf("postgres: add app install: %w", mapError(err))
	}
	return a, nil
}

func (q queries) AppInstalls(ctx context.Context, instanceID int64) ([]store.AppInstall, error) {
	return q.listInstalls(ctx, `SELECT `+installColumns+` FROM app_installs WHERE instance_id = $1 ORDER BY position`, instanceID)
}

// OpenAppInstalls reads without SKIP LOCKED: the worker takes the first open install of each
// instance from this list, and skipping a locked first one would start the second out of order.
func (q queries) OpenAppInstalls(ctx context.Context, limit int) ([]store.AppInstall, error) {
	return q.listInstalls(ctx, `SELECT `+installColumns+` FROM app_installs WHERE status IN ($1, $2)
		ORDER BY instance_id, position LIMIT $3`, store.InstallQueued, store.InstallInstalling, limit)
}

func (q queries) listInstalls(ctx context.Context, query string, args ...any) ([]store.AppInstall, error) {
	rows, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list app installs: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (store.AppInstall, error) { return scanInstall(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list app installs: %w", err)
	}
	return out, nil
}

func (q queries) ClaimAppInstall(ctx context.Context, id int64, now, until time.Time) (bool, error) {
	if err := q.lockOwner(ctx, tableAppInstalls, id); err != nil {
		return false, err
	}
	tag, err := q.q.Exec(ctx, `UPDATE app_installs SET lease_until = $1
		WHERE id = $2 AND status IN ($3, $4) AND (lease_until IS NULL OR lease_until <= $5)`,
		until.UTC(), id, store.InstallQueued, store.InstallInstalling, now.UTC())
	return claimed(tag, err, "claim app install", id)
}

func (q queries) UpdateAppInstall(ctx context.Context, a store.AppInstall) error {
	result, err := jsonText(a.Result, "{}")
	if err != nil {
		return err
	}
	if err := q.lockOwner(ctx, tableInstances, a.InstanceID); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE app_installs SET status = $1, stage = $2, attempts = $3, result = $4, error = $5,
		log_tail = $6, started_at = $7, finished_at = $8, next_at = $9, lease_until = NULL WHERE id = $10`,
		a.Status, a.Stage, a.Attempts, result, a.Error, a.LogTail, nullTime(a.StartedAt), nullTime(a.FinishedAt),
		a.NextAt.UTC(), a.ID)
	return checkOneRow(tag, err, "update app install", a.ID)
}

func (q queries) DeleteAppInstalls(ctx context.Context, instanceID int64) error {
	if err := q.lockOwner(ctx, tableInstances, instanceID); err != nil {
		return err
	}
	if _, err := q.q.Exec(ctx, `DELETE FROM app_installs WHERE instance_id = $1`, instanceID); err != nil {
		return fmt.Errorf("postgres: delete app installs of instance %d: %w", instanceID, err)
	}
	return nil
}

func (q queries) AddEvent(ctx context.Context, e store.Event) error {
	if err := q.lockAccount(ctx, e.AccountID); err != nil {
		return err
	}
	_, err := q.q.Exec(ctx, `INSERT INTO events (id, account_id, name, data, created_at) VALUES ($1, $2, $3, $4, $5)`,
		e.ID, e.AccountID, e.Name, string(e.Data), e.CreatedAt.UTC())
	if err != nil {
		return fmt.Errorf("postgres: add event: %w", mapError(err))
	}
	return nil
}

func (q queries) Events(ctx context.Context, accountID int64) ([]store.Event, error) {
	rows, err := q.q.Query(ctx, `SELECT id, account_id, name, data, created_at FROM events
		WHERE account_id = $1 ORDER BY created_at, seq`, accountID)
	if err != nil {
		return nil, fmt.Errorf("postgres: list events: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (store.Event, error) {
		var e store.Event
		var data string
		var ts timeScanner
		err := r.Scan(&e.ID, &e.AccountID, &e.Name, &data, ts.at(&e.CreatedAt))
		ts.parse()
		e.Data = []byte(data)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list events: %w", err)
	}
	return out, nil
}
