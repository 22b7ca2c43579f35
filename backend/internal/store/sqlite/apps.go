package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const installColumns = `id, instance_id, app_id, position, status, stage, attempts, inputs, result, error, log_tail,
	queued_at, started_at, finished_at, next_at`

func scanInstall(r rowScanner) (store.AppInstall, error) {
	var a store.AppInstall
	var inputs, result string
	var ts timeScanner
	err := r.Scan(&a.ID, &a.InstanceID, &a.AppID, &a.Position, &a.Status, &a.Stage, &a.Attempts, &inputs, &result,
		&a.Error, &a.LogTail, ts.at(&a.QueuedAt), ts.at(&a.StartedAt), ts.at(&a.FinishedAt), ts.at(&a.NextAt))
	if err != nil {
		return store.AppInstall{}, mapError(err)
	}
	if err := ts.parse(); err != nil {
		return store.AppInstall{}, err
	}
	if err := fromJSON(inputs, &a.Inputs); err != nil {
		return store.AppInstall{}, err
	}
	if err := fromJSON(result, &a.Result); err != nil {
		return store.AppInstall{}, err
	}
	return a, nil
}

func (q queries) AddAppInstall(ctx context.Context, a store.AppInstall) (store.AppInstall, error) {
	inputs, err := jsonText(a.Inputs, "{}")
	if err != nil {
		return store.AppInstall{}, err
	}
	result, err := jsonText(a.Result, "{}")
	if err != nil {
		return store.AppInstall{}, err
	}
	err = q.q.QueryRowContext(ctx, `INSERT INTO app_installs (instance_id, app_id, position, status, stage, attempts, inputs,
		result, error, log_tail, queued_at, started_at, finished_at, next_at)
		VALUES (?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM app_installs WHERE instance_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		RETURNING id, position`,
		a.InstanceID, a.AppID, a.InstanceID, a.Status, a.Stage, a.Attempts, inputs, result, a.Error, a.LogTail,
		formatTime(a.QueuedAt), nullTime(a.StartedAt), nullTime(a.FinishedAt), formatTime(a.NextAt)).Scan(&a.ID, &a.Position)
	if err != nil {
		return store.AppInstall{}, fmt.Errorf("sqlite: add app install: %w", mapError(err))
	}
	return a, nil
}

func (q queries) AppInstalls(ctx context.Context, instanceID int64) ([]store.AppInstall, error) {
	return q.listInstalls(ctx, `SELECT `+installColumns+` FROM app_installs WHERE instance_id = ? ORDER BY position`, instanceID)
}

func (q queries) OpenAppInstalls(ctx context.Context, limit int) ([]store.AppInstall, error) {
	return q.listInstalls(ctx, `SELECT `+installColumns+` FROM app_installs WHERE status IN (?, ?)
		ORDER BY instance_id, position LIMIT ?`, store.InstallQueued, store.InstallInstalling, limit)
}

func (q queries) listInstalls(ctx context.Context, query string, args ...any) ([]store.AppInstall, error) {
	rows, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list app installs: %w", err)
	}
	defer rows.Close()
	out := []store.AppInstall{}
	for rows.Next() {
		a, err := scanInstall(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: scan app install: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list app installs: %w", err)
	}
	return out, nil
}

func (q queries) ClaimAppInstall(ctx context.Context, id int64, now, until time.Time) (bool, error) {
	res, err := q.q.ExecContext(ctx, `UPDATE app_installs SET lease_until = ?
		WHERE id = ? AND status IN (?, ?) AND (lease_until IS NULL OR lease_until <= ?)`,
		formatTime(until), id, store.InstallQueued, store.InstallInstalling, formatTime(now))
	return claimed(res, err, "claim app install", id)
}

func (q queries) UpdateAppInstall(ctx context.Context, a store.AppInstall) error {
	result, err := jsonText(a.Result, "{}")
	if err != nil {
		return err
	}
	res, err := q.q.ExecContext(ctx, `UPDATE app_installs SET status = ?, stage = ?, attempts = ?, result = ?, error = ?,
		log_tail = ?, started_at = ?, finished_at = ?, next_at = ?, lease_until = NULL WHERE id = ?`,
		a.Status, a.Stage, a.Attempts, result, a.Error, a.LogTail, nullTime(a.StartedAt), nullTime(a.FinishedAt),
		formatTime(a.NextAt), a.ID)
	return checkOneRow(res, err, "update app install", a.ID)
}

func (q queries) DeleteAppInstalls(ctx context.Context, instanceID int64) error {
	if _, err := q.q.ExecContext(ctx, `DELETE FROM app_installs WHERE instance_id = ?`, instanceID); err != nil {
		return fmt.Errorf("sqlite: delete app installs of instance %d: %w", instanceID, err)
	}
	return nil
}

func (q queries) AddEvent(ctx context.Context, e store.Event) error {
	_, err := q.q.ExecContext(ctx, `INSERT INTO events (id, account_id, name, data, created_at) VALUES (?, ?, ?, ?, ?)`,
		e.ID, e.AccountID, e.Name, string(e.Data), formatTime(e.CreatedAt))
	if err != nil {
		return fmt.Errorf("sqlite: add event: %w", mapError(err))
	}
	return nil
}

func (q queries) Events(ctx context.Context, accountID int64) ([]store.Event, error) {
	rows, err := q.q.QueryContext(ctx, `SELECT id, account_id, name, data, created_at FROM events
		WHERE account_id = ? ORDER BY created_at, rowid`, accountID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list events: %w", err)
	}
	defer rows.Close()
	out := []store.Event{}
	for rows.Next() {
		var e store.Event
		var data, created string
		if err := rows.Scan(&e.ID, &e.AccountID, &e.Name, &data, &created); err != nil {
			return nil, fmt.Errorf("sqlite: scan event: %w", err)
		}
		e.Data = []byte(data)
		if e.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list events: %w", err)
	}
	return out, nil
}
