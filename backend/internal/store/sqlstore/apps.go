package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

const installColumns = `id, instance_id, app_id, position, status, stage, attempts, inputs, result, error, log_tail,
	queued_at, started_at, finished_at, next_at`

func scanInstall(r rowScanner) (store.AppInstall, error) {
	var a store.AppInstall
	err := r.Scan(&a.ID, &a.InstanceID, &a.AppID, &a.Position, &a.Status, &a.Stage, &a.Attempts, jsonColumn{&a.Inputs},
		jsonColumn{&a.Result}, &a.Error, &a.LogTail, at(&a.QueuedAt), at(&a.StartedAt), at(&a.FinishedAt), at(&a.NextAt))
	return a, err
}

// AddAppInstall appends an install to its instance's queue. In a transaction the account lock
// taken first (or SQLite's one writer) makes the MAX(position) + 1 below safe from a
// concurrent append.
func (q queries) AddAppInstall(ctx context.Context, a store.AppInstall) (store.AppInstall, error) {
	args, err := installArgs(a, 1)
	if err != nil {
		return store.AppInstall{}, err
	}
	if err := q.lockOwner(ctx, tableInstances, a.InstanceID); err != nil {
		return store.AppInstall{}, err
	}
	err = q.queryRow(ctx, `INSERT INTO app_installs (`+installInsertColumns+`) VALUES `+installRow+`
		RETURNING id, position`, args...).Scan(&a.ID, &a.Position)
	if err != nil {
		return store.AppInstall{}, fmt.Errorf("sqlstore: add app install: %w", err)
	}
	return a, nil
}

// AddAppInstalls appends the installs to their instances' queues with one statement, each
// instance's in the order given, after locking the instances' accounts (whose one read is the
// only other statement, and only in a transaction).
func (q queries) AddAppInstalls(ctx context.Context, installs []store.AppInstall) error {
	if len(installs) == 0 {
		return nil
	}
	rank := map[int64]int{}
	args := make([]any, 0, 16*len(installs))
	rows := make([]string, len(installs))
	for i, a := range installs {
		rank[a.InstanceID]++
		row, err := installArgs(a, rank[a.InstanceID])
		if err != nil {
			return err
		}
		args, rows[i] = append(args, row...), installRow
	}
	if err := q.lockInstanceOwners(ctx, slices.Collect(maps.Keys(rank))); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `INSERT INTO app_installs (`+installInsertColumns+`) VALUES `+strings.Join(rows, ", "), args...); err != nil {
		return fmt.Errorf("sqlstore: add %d app installs: %w", len(installs), err)
	}
	return nil
}

// installInsertColumns are the columns a new install is written with (installRow).
const installInsertColumns = `instance_id, app_id, position, status, stage, attempts, inputs, result, error, log_tail,
	queued_at, started_at, finished_at, next_at`

// installRow is the VALUES row of a new install (installArgs): its position is the last of its
// instance's queue plus its rank among the instance's new installs, which a statement's own
// rows cannot see.
const installRow = `(?, ?, (SELECT COALESCE(MAX(position), 0) + ? FROM app_installs WHERE instance_id = ?),
	?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// installArgs are the arguments of installRow for a, the rank-th new install of its instance.
func installArgs(a store.AppInstall, rank int) ([]any, error) {
	inputs, err := jsonText(a.Inputs, "{}")
	if err != nil {
		return nil, err
	}
	result, err := jsonText(a.Result, "{}")
	if err != nil {
		return nil, err
	}
	return []any{a.InstanceID, a.AppID, rank, a.InstanceID, a.Status, a.Stage, a.Attempts, inputs, result, a.Error,
		a.LogTail, a.QueuedAt, nullTime(a.StartedAt), nullTime(a.FinishedAt), a.NextAt}, nil
}

// AppInstalls reads the app installs of an instance outside transactions, through the row
// cache (see cache.go); what it returns is a copy the caller may change.
func (s *Store) AppInstalls(ctx context.Context, instanceID int64) ([]store.AppInstall, error) {
	installs, err := cached(ctx, s.cache, cacheKey{kind: cachedInstalls, id: instanceID}, func() ([]store.AppInstall, error) {
		return s.queries.AppInstalls(ctx, instanceID)
	})
	return cloneInstalls(installs), err
}

// cloneInstalls copies installs and their maps, so a caller's changes stay out of the cache.
func cloneInstalls(installs []store.AppInstall) []store.AppInstall {
	if installs == nil {
		return nil
	}
	out := make([]store.AppInstall, len(installs))
	for i, a := range installs {
		a.Inputs, a.Result = maps.Clone(a.Inputs), maps.Clone(a.Result)
		out[i] = a
	}
	return out
}

// AppInstalls reads the app installs of an instance, in a transaction or for Store.AppInstalls.
func (q queries) AppInstalls(ctx context.Context, instanceID int64) ([]store.AppInstall, error) {
	return list(ctx, q, "app installs", scanInstall, `SELECT `+installColumns+` FROM app_installs
		WHERE instance_id = ? ORDER BY position`, instanceID)
}

// OpenAppInstalls reads without SKIP LOCKED: the worker takes the first open install of each
// instance from this list, and skipping a locked first one would start the second out of order.
func (q queries) OpenAppInstalls(ctx context.Context, limit int) ([]store.AppInstall, error) {
	return list(ctx, q, "app installs", scanInstall, `SELECT `+installColumns+` FROM app_installs
		WHERE status IN (?, ?) ORDER BY instance_id, position LIMIT ?`, store.InstallQueued, store.InstallInstalling, limit)
}

func (q queries) ClaimAppInstall(ctx context.Context, id int64, now, until time.Time) (bool, error) {
	if err := q.lockOwner(ctx, tableAppInstalls, id); err != nil {
		return false, err
	}
	res, err := q.exec(ctx, `UPDATE app_installs SET lease_until = ?
		WHERE id = ? AND status IN (?, ?) AND (lease_until IS NULL OR lease_until <= ?)`,
		until, id, store.InstallQueued, store.InstallInstalling, now)
	return claimed(res, err, "claim app install", id)
}

func (q queries) UpdateAppInstall(ctx context.Context, a store.AppInstall) error {
	result, err := jsonText(a.Result, "{}")
	if err != nil {
		return err
	}
	if err := q.lockOwner(ctx, tableInstances, a.InstanceID); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE app_installs SET status = ?, stage = ?, attempts = ?, result = ?, error = ?,
		log_tail = ?, started_at = ?, finished_at = ?, next_at = ?, lease_until = NULL WHERE id = ?`,
		a.Status, a.Stage, a.Attempts, result, a.Error, a.LogTail, nullTime(a.StartedAt), nullTime(a.FinishedAt),
		a.NextAt, a.ID)
	return checkOneRow(res, err, "update app install", a.ID)
}

func (q queries) DeleteAppInstalls(ctx context.Context, instanceID int64) error {
	if err := q.lockOwner(ctx, tableInstances, instanceID); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM app_installs WHERE instance_id = ?`, instanceID); err != nil {
		return fmt.Errorf("sqlstore: delete app installs of instance %d: %w", instanceID, err)
	}
	return nil
}
