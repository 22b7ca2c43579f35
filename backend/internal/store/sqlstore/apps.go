package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The last is the install's owner, its instance's account, which its sealed inputs and result
// are bound to.
const installColumns = `id, instance_id, app_id, position, status, stage, attempts, inputs, result, error, log_tail,
	queued_at, started_at, finished_at, next_at, COALESCE(` + installOwner + `, 0)`

// scanInstall reads an app install and opens its inputs and result.
func (q queries) scanInstall(r rowScanner) (store.AppInstall, error) {
	var a store.AppInstall
	var inputs, result string
	var owner int64
	err := r.Scan(&a.ID, &a.InstanceID, &a.AppID, &a.Position, &a.Status, &a.Stage, &a.Attempts, &inputs,
		&result, &a.Error, &a.LogTail, at(&a.QueuedAt), at(&a.StartedAt), at(&a.FinishedAt), at(&a.NextAt), &owner)
	if err != nil {
		return store.AppInstall{}, err
	}
	if err := q.openJSON(installInputs, a.ID, owner, inputs, &a.Inputs); err != nil {
		return store.AppInstall{}, err
	}
	return a, q.openJSON(installResult, a.ID, owner, result, &a.Result)
}

// AddAppInstall appends an install to its instance's queue. In a transaction the account lock
// taken first (or SQLite's one writer) makes the MAX(position) + 1 below safe from a
// concurrent append.
func (q queries) AddAppInstall(ctx context.Context, a store.AppInstall) (store.AppInstall, error) {
	args, err := q.installArgs(a, 1)
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
	if err := q.sealNewInstalls(ctx, []store.AppInstall{a}); err != nil {
		return store.AppInstall{}, err
	}
	return a, nil
}

// AddAppInstalls appends the installs to their instances' queues with one statement, each
// instance's in the order given, after locking the instances' accounts (whose one read is the
// only other statement, and only in a transaction; with a key the seals of the inputs are a
// third, see sealNewInstalls).
func (q queries) AddAppInstalls(ctx context.Context, installs []store.AppInstall) error {
	if len(installs) == 0 {
		return nil
	}
	rank := map[int64]int{}
	args := make([]any, 0, 16*len(installs))
	rows := make([]string, len(installs))
	for i, a := range installs {
		rank[a.InstanceID]++
		row, err := q.installArgs(a, rank[a.InstanceID])
		if err != nil {
			return err
		}
		args, rows[i] = append(args, row...), installRow
	}
	if err := q.lockInstanceOwners(ctx, slices.Collect(maps.Keys(rank))); err != nil {
		return err
	}
	insert := `INSERT INTO app_installs (` + installInsertColumns + `) VALUES ` + strings.Join(rows, ", ")
	if !q.keys.Seals() {
		if _, err := q.exec(ctx, insert, args...); err != nil {
			return fmt.Errorf("sqlstore: add %d app installs: %w", len(installs), err)
		}
		return nil
	}
	placed, err := list(ctx, q, "new app installs", scanPlaced, insert+` RETURNING id, instance_id, position`, args...)
	if err != nil {
		return fmt.Errorf("sqlstore: add %d app installs: %w", len(installs), err)
	}
	return q.sealNewInstalls(ctx, withIDs(installs, placed))
}

// placedInstall is the id and place a new install got.
type placedInstall struct{ id, instanceID, position int64 }

func scanPlaced(r rowScanner) (placedInstall, error) {
	var p placedInstall
	err := r.Scan(&p.id, &p.instanceID, &p.position)
	return p, err
}

// withIDs gives installs the ids of placed, the rows their INSERT returned: RETURNING promises
// no order, but each instance's new installs took its next places in the order given.
func withIDs(installs []store.AppInstall, placed []placedInstall) []store.AppInstall {
	slices.SortFunc(placed, func(a, b placedInstall) int {
		return cmp.Or(cmp.Compare(a.instanceID, b.instanceID), cmp.Compare(a.position, b.position))
	})
	out := slices.Clone(installs)
	next := map[int64]int{} // instance → index into placed of its next new install
	for i := range out {
		k, seen := next[out[i].InstanceID]
		if !seen {
			k = slices.IndexFunc(placed, func(p placedInstall) bool { return p.instanceID == out[i].InstanceID })
		}
		if k >= 0 && k < len(placed) && placed[k].instanceID == out[i].InstanceID {
			out[i].ID = placed[k].id
		}
		next[out[i].InstanceID] = k + 1
	}
	return out
}

// sealNewInstalls seals the inputs and results of installs just added, in their transaction.
func (q queries) sealNewInstalls(ctx context.Context, installs []store.AppInstall) error {
	if !q.keys.Seals() {
		return nil
	}
	ids := make([]int64, len(installs))
	for i, a := range installs {
		ids[i] = a.InstanceID
	}
	owners, err := q.instanceOwners(ctx, ids)
	if err != nil {
		return err
	}
	inputs, results := make([]newSecret, 0, len(installs)), make([]newSecret, 0, len(installs))
	for _, a := range installs {
		if a.ID == 0 {
			return fmt.Errorf("sqlstore: add app installs: no id returned for an install of instance %d", a.InstanceID)
		}
		in, err := jsonText(a.Inputs, installInputs.empty)
		if err != nil {
			return err
		}
		res, err := jsonText(a.Result, installResult.empty)
		if err != nil {
			return err
		}
		owner := owners[a.InstanceID]
		inputs = append(inputs, newSecret{row: a.ID, owner: owner, plain: in})
		results = append(results, newSecret{row: a.ID, owner: owner, plain: res})
	}
	if err := q.sealInserted(ctx, installInputs, inputs); err != nil {
		return err
	}
	return q.sealInserted(ctx, installResult, results)
}

// instanceOwners are the accounts of the instances ids, by instance: the owners app installs'
// sealed values are bound to. An instance that is not there is missing from the map.
func (q queries) instanceOwners(ctx context.Context, ids []int64) (map[int64]int64, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	in, args := inList(ids)
	pairs, err := list(ctx, q, "owners", scanPair, `SELECT id, account_id FROM instances WHERE id IN `+in, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: owners of %d instances: %w", len(ids), err)
	}
	owners := make(map[int64]int64, len(pairs))
	for _, p := range pairs {
		owners[p[0]] = p[1]
	}
	return owners, nil
}

// scanPair reads two integer columns.
func scanPair(r rowScanner) ([2]int64, error) {
	var p [2]int64
	err := r.Scan(&p[0], &p[1])
	return p, err
}

// installInsertColumns are the columns a new install is written with (installRow).
const installInsertColumns = `instance_id, app_id, position, status, stage, attempts, inputs, result, error, log_tail,
	queued_at, started_at, finished_at, next_at`

// installRow is the VALUES row of a new install (installArgs): its position is the last of its
// instance's queue plus its rank among the instance's new installs, which a statement's own
// rows cannot see.
const installRow = `(?, ?, (SELECT COALESCE(MAX(position), 0) + ? FROM app_installs WHERE instance_id = ?),
	?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// installArgs are the arguments of installRow for a, the rank-th new install of its instance;
// its inputs and result are the insertValues (sealNewInstalls seals them with a key).
func (q queries) installArgs(a store.AppInstall, rank int) ([]any, error) {
	inputs, err := q.insertJSON(installInputs, a.Inputs)
	if err != nil {
		return nil, err
	}
	result, err := q.insertJSON(installResult, a.Result)
	if err != nil {
		return nil, err
	}
	return []any{a.InstanceID, a.AppID, rank, a.InstanceID, a.Status, a.Stage, a.Attempts, inputs, result, a.Error,
		a.LogTail, a.QueuedAt, nullTime(a.StartedAt), nullTime(a.FinishedAt), a.NextAt}, nil
}

// AppInstalls reads the app installs of an instance outside transactions, through the row
// cache (see cache.go); what it returns is a copy the caller may change.
func (s *Store) AppInstalls(ctx context.Context, instanceID int64) ([]store.AppInstall, error) {
	installs, err := cached(ctx, s.cache, cacheKey{kind: cachedInstalls, id: instanceID}, anyChange, func() ([]store.AppInstall, error) {
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
	return list(ctx, q, "app installs", q.scanInstall, `SELECT `+installColumns+` FROM app_installs
		WHERE instance_id = ? ORDER BY position`, instanceID)
}

// OpenAppInstalls reads without SKIP LOCKED: the worker takes the first open install of each
// instance from this list, and skipping a locked first one would start the second out of order.
func (q queries) OpenAppInstalls(ctx context.Context, limit int) ([]store.AppInstall, error) {
	return list(ctx, q, "app installs", q.scanInstall, `SELECT `+installColumns+` FROM app_installs
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

// UpdateAppInstall writes the install's inputs too: the service empties them once the install
// has finished.
func (q queries) UpdateAppInstall(ctx context.Context, a store.AppInstall) error {
	owner := noOwner // without a key nothing is bound to it
	if q.keys.Seals() {
		owners, err := q.instanceOwners(ctx, []int64{a.InstanceID})
		if err != nil {
			return err
		}
		owner = owners[a.InstanceID]
	}
	inputs, err := q.sealJSON(installInputs, a.ID, owner, a.Inputs)
	if err != nil {
		return err
	}
	result, err := q.sealJSON(installResult, a.ID, owner, a.Result)
	if err != nil {
		return err
	}
	if err := q.lockOwner(ctx, tableInstances, a.InstanceID); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE app_installs SET status = ?, stage = ?, attempts = ?, inputs = ?, result = ?, error = ?,
		log_tail = ?, started_at = ?, finished_at = ?, next_at = ?, lease_until = NULL WHERE id = ?`,
		a.Status, a.Stage, a.Attempts, inputs, result, a.Error, a.LogTail, nullTime(a.StartedAt), nullTime(a.FinishedAt),
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
