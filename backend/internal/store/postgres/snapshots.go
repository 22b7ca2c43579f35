package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// snapshotColumns reads a snapshot joined with its source instance (alias i), whose active flag
// is SourceActive.
const snapshotColumns = `s.id, s.account_id, s.instance_id, COALESCE(i.active, FALSE), s.name, s.note, s.status, s.busy_until,
	s.locked, s.lock_reason, s.locked_at, s.size_gb, s.price_micros, s.accrued_micros, s.paid_micros, s.renewal_due,
	s.created_at, s.available_at, s.expired_at, s.datacenter_id, s.location_id, s.template_id, s.plan_id, s.os_type,
	s.architecture, s.source_name, s.features, s.local, s.username, s.password, s.port, s.image_ref,
	s.image_deleted`

const snapshotFrom = ` FROM snapshots s LEFT JOIN instances i ON i.id = s.instance_id `

// activeSnapshot is the SQL list of the statuses that count as active.
const activeSnapshot = `('` + store.SnapshotCreating + `', '` + store.SnapshotAvailable + `', '` + store.SnapshotRestoring + `')`

// billedSnapshot is the SQL list of the statuses that are billed.
const billedSnapshot = `('` + store.SnapshotAvailable + `', '` + store.SnapshotRestoring + `')`

// snapshotRowLock and snapshotSkipLocked lock the snapshot only, never the joined instance (the
// nullable side of the outer join cannot be locked, and need not be).
const (
	snapshotRowLock    = forUpdate + ` OF s`
	snapshotSkipLocked = ` FOR UPDATE OF s SKIP LOCKED`
)

func scanSnapshot(r pgx.Row) (store.Snapshot, error) {
	var s store.Snapshot
	var features string
	var ts timeScanner
	err := r.Scan(&s.ID, &s.AccountID, &s.InstanceID, &s.SourceActive, &s.Name, &s.Note, &s.Status, ts.at(&s.BusyUntil),
		&s.Locked, &s.LockReason, ts.at(&s.LockedAt), &s.SizeGB, &s.Price, &s.Accrued, &s.Paid, ts.at(&s.RenewalDue),
		ts.at(&s.CreatedAt), ts.at(&s.AvailableAt), ts.at(&s.ExpiredAt), &s.DatacenterID, &s.LocationID, &s.TemplateID,
		&s.PlanID, &s.OSType, &s.Architecture, &s.SourceName, &features, &s.Local, &s.Username, &s.Password, &s.Port,
		&s.ImageRef, &s.ImageGone)
	if err != nil {
		return store.Snapshot{}, mapError(err)
	}
	ts.parse()
	if err := fromJSON(features, &s.Features); err != nil {
		return store.Snapshot{}, err
	}
	return s, nil
}

func (q queries) CreateSnapshot(ctx context.Context, s store.Snapshot) (store.Snapshot, error) {
	features, err := jsonText(s.Features, "[]")
	if err != nil {
		return store.Snapshot{}, err
	}
	if err := q.lockAccount(ctx, s.AccountID); err != nil {
		return store.Snapshot{}, err
	}
	err = q.q.QueryRow(ctx, `INSERT INTO snapshots (account_id, instance_id, name, note, status, busy_until, locked,
		lock_reason, locked_at, size_gb, price_micros, accrued_micros, paid_micros, renewal_due, created_at, available_at,
		expired_at, datacenter_id, location_id, template_id, plan_id, os_type, architecture, source_name, features, local,
		username, password, port, image_ref)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
		$24, $25, $26, $27, $28, $29, $30) RETURNING id`,
		s.AccountID, s.InstanceID, s.Name, s.Note, s.Status, nullTime(s.BusyUntil), s.Locked, s.LockReason,
		nullTime(s.LockedAt), s.SizeGB, s.Price, s.Accrued, s.Paid, nullTime(s.RenewalDue), s.CreatedAt.UTC(),
		nullTime(s.AvailableAt), nullTime(s.ExpiredAt), s.DatacenterID, s.LocationID, s.TemplateID, s.PlanID, s.OSType,
		s.Architecture, s.SourceName, features, s.Local, s.Username, s.Password, s.Port, s.ImageRef).Scan(&s.ID)
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("postgres: create snapshot: %w", mapError(err))
	}
	// Read back so SourceActive reflects the instance.
	return q.SnapshotByID(ctx, s.ID)
}

// snapshotLock is the row lock of a single-snapshot read: the snapshot's row in a transaction.
func (q queries) snapshotLock() string {
	if q.locks == nil {
		return ""
	}
	return snapshotRowLock
}

func (q queries) Snapshot(ctx context.Context, accountID, id int64) (store.Snapshot, error) {
	if err := q.lockOwner(ctx, tableSnapshots, id); err != nil {
		return store.Snapshot{}, err
	}
	s, err := scanSnapshot(q.q.QueryRow(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.id = $1 AND s.account_id = $2`+
		q.snapshotLock(), id, accountID))
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("postgres: snapshot %d: %w", id, err)
	}
	return s, nil
}

func (q queries) SnapshotByID(ctx context.Context, id int64) (store.Snapshot, error) {
	if err := q.lockOwner(ctx, tableSnapshots, id); err != nil {
		return store.Snapshot{}, err
	}
	s, err := scanSnapshot(q.q.QueryRow(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.id = $1`+q.snapshotLock(), id))
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("postgres: snapshot %d: %w", id, err)
	}
	return s, nil
}

func (q queries) Snapshots(ctx context.Context, accountID int64, includeInactive bool) ([]store.Snapshot, error) {
	if includeInactive {
		return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.account_id = $1 ORDER BY s.id DESC`, accountID)
	}
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.account_id = $1 AND s.status IN `+activeSnapshot+`
		ORDER BY s.id DESC`, accountID)
}

func (q queries) InstanceSnapshots(ctx context.Context, instanceID int64) ([]store.Snapshot, error) {
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.instance_id = $1 ORDER BY s.id DESC`, instanceID)
}

func (q queries) OpenSnapshots(ctx context.Context, limit int) ([]store.Snapshot, error) {
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.status IN ($1, $2) ORDER BY s.id LIMIT $3`+
		snapshotSkipLocked, store.SnapshotCreating, store.SnapshotRestoring, limit)
}

func (q queries) DueSnapshotRenewals(ctx context.Context, now time.Time, limit int) ([]store.Snapshot, error) {
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.status IN `+billedSnapshot+`
		AND s.renewal_due <= $1 ORDER BY s.renewal_due, s.id LIMIT $2`+snapshotSkipLocked, now.UTC(), limit)
}

func (q queries) UndeletedImages(ctx context.Context, limit int) ([]store.Snapshot, error) {
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.status IN ($1, $2, $3) AND s.image_ref != ''
		AND NOT s.image_deleted ORDER BY s.id LIMIT $4`+snapshotSkipLocked,
		store.SnapshotDeleted, store.SnapshotExpired, store.SnapshotFailed, limit)
}

func (q queries) listSnapshots(ctx context.Context, query string, args ...any) ([]store.Snapshot, error) {
	rows, err := q.q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list snapshots: %w", err)
	}
	out, err := collect(rows, func(r pgx.Rows) (store.Snapshot, error) { return scanSnapshot(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list snapshots: %w", err)
	}
	return out, nil
}

func (q queries) UpdateSnapshot(ctx context.Context, s store.Snapshot) error {
	if err := q.lockAccount(ctx, s.AccountID); err != nil { // account_id never changes
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE snapshots SET name = $1, note = $2, status = $3, busy_until = $4, locked = $5,
		lock_reason = $6, locked_at = $7, size_gb = $8, price_micros = $9, accrued_micros = $10, paid_micros = $11,
		renewal_due = $12, available_at = $13, expired_at = $14, image_ref = $15
		WHERE id = $16`,
		s.Name, s.Note, s.Status, nullTime(s.BusyUntil), s.Locked, s.LockReason, nullTime(s.LockedAt), s.SizeGB, s.Price,
		s.Accrued, s.Paid, nullTime(s.RenewalDue), nullTime(s.AvailableAt), nullTime(s.ExpiredAt), s.ImageRef, s.ID)
	return checkOneRow(tag, err, "update snapshot", s.ID)
}

func (q queries) AdvanceSnapshotRenewal(ctx context.Context, id int64, from, to time.Time) error {
	if err := q.lockOwner(ctx, tableSnapshots, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE snapshots SET renewal_due = $1 WHERE id = $2 AND renewal_due = $3 AND status IN `+billedSnapshot,
		to.UTC(), id, from.UTC())
	return guarded(tag, err, "advance renewal of snapshot", id)
}

func (q queries) UnlockSnapshots(ctx context.Context, accountID int64, reason string) error {
	if err := q.lockAccount(ctx, accountID); err != nil {
		return err
	}
	_, err := q.q.Exec(ctx, `UPDATE snapshots SET locked = FALSE, lock_reason = '', locked_at = NULL
		WHERE account_id = $1 AND locked AND lock_reason = $2`, accountID, reason)
	if err != nil {
		return fmt.Errorf("postgres: unlock snapshots of account %d: %w", accountID, err)
	}
	return nil
}

func (q queries) MarkImageDeleted(ctx context.Context, id int64) error {
	if err := q.lockOwner(ctx, tableSnapshots, id); err != nil {
		return err
	}
	tag, err := q.q.Exec(ctx, `UPDATE snapshots SET image_deleted = TRUE WHERE id = $1`, id)
	return checkOneRow(tag, err, "mark image deleted of snapshot", id)
}
