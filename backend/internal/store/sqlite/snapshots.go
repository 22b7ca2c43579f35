package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// snapshotColumns reads a snapshot joined with its source instance (alias i), whose active flag
// is SourceActive.
const snapshotColumns = `s.id, s.account_id, s.instance_id, COALESCE(i.active, 0), s.name, s.note, s.status, s.busy_until,
	s.locked, s.lock_reason, s.locked_at, s.size_gb, s.price_micros, s.accrued_micros, s.paid_micros, s.renewal_due,
	s.created_at, s.available_at, s.expired_at, s.datacenter_id, s.location_id, s.template_id, s.plan_id, s.os_type,
	s.architecture, s.source_name, s.features, s.local, s.username, s.password, s.port, s.image_ref,
	s.image_deleted`

const snapshotFrom = ` FROM snapshots s LEFT JOIN instances i ON i.id = s.instance_id `

// activeSnapshot is the SQL list of the statuses that count as active.
const activeSnapshot = `('` + store.SnapshotCreating + `', '` + store.SnapshotAvailable + `', '` + store.SnapshotRestoring + `')`

// billedSnapshot is the SQL list of the statuses that are billed.
const billedSnapshot = `('` + store.SnapshotAvailable + `', '` + store.SnapshotRestoring + `')`

func scanSnapshot(r rowScanner) (store.Snapshot, error) {
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
	if err := ts.parse(); err != nil {
		return store.Snapshot{}, err
	}
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
	err = q.q.QueryRowContext(ctx, `INSERT INTO snapshots (account_id, instance_id, name, note, status, busy_until, locked,
		lock_reason, locked_at, size_gb, price_micros, accrued_micros, paid_micros, renewal_due, created_at, available_at,
		expired_at, datacenter_id, location_id, template_id, plan_id, os_type, architecture, source_name, features, local,
		username, password, port, image_ref)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		s.AccountID, s.InstanceID, s.Name, s.Note, s.Status, nullTime(s.BusyUntil), s.Locked, s.LockReason,
		nullTime(s.LockedAt), s.SizeGB, s.Price, s.Accrued, s.Paid, nullTime(s.RenewalDue), formatTime(s.CreatedAt),
		nullTime(s.AvailableAt), nullTime(s.ExpiredAt), s.DatacenterID, s.LocationID, s.TemplateID, s.PlanID, s.OSType,
		s.Architecture, s.SourceName, features, s.Local, s.Username, s.Password, s.Port, s.ImageRef).Scan(&s.ID)
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("sqlite: create snapshot: %w", mapError(err))
	}
	// Read back so SourceActive reflects the instance.
	return q.SnapshotByID(ctx, s.ID)
}

func (q queries) Snapshot(ctx context.Context, accountID, id int64) (store.Snapshot, error) {
	s, err := scanSnapshot(q.q.QueryRowContext(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.id = ? AND s.account_id = ?`, id, accountID))
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("sqlite: snapshot %d: %w", id, err)
	}
	return s, nil
}

func (q queries) SnapshotByID(ctx context.Context, id int64) (store.Snapshot, error) {
	s, err := scanSnapshot(q.q.QueryRowContext(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.id = ?`, id))
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("sqlite: snapshot %d: %w", id, err)
	}
	return s, nil
}

func (q queries) Snapshots(ctx context.Context, accountID int64, includeInactive bool) ([]store.Snapshot, error) {
	if includeInactive {
		return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.account_id = ? ORDER BY s.id DESC`, accountID)
	}
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.account_id = ? AND s.status IN `+activeSnapshot+`
		ORDER BY s.id DESC`, accountID)
}

func (q queries) InstanceSnapshots(ctx context.Context, instanceID int64) ([]store.Snapshot, error) {
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.instance_id = ? ORDER BY s.id DESC`, instanceID)
}

func (q queries) OpenSnapshots(ctx context.Context, limit int) ([]store.Snapshot, error) {
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.status IN (?, ?) ORDER BY s.id LIMIT ?`,
		store.SnapshotCreating, store.SnapshotRestoring, limit)
}

func (q queries) DueSnapshotRenewals(ctx context.Context, now time.Time, limit int) ([]store.Snapshot, error) {
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.status IN `+billedSnapshot+`
		AND s.renewal_due <= ? ORDER BY s.renewal_due, s.id LIMIT ?`, formatTime(now), limit)
}

func (q queries) UndeletedImages(ctx context.Context, limit int) ([]store.Snapshot, error) {
	return q.listSnapshots(ctx, `SELECT `+snapshotColumns+snapshotFrom+`WHERE s.status IN (?, ?, ?) AND s.image_ref != ''
		AND s.image_deleted = 0 ORDER BY s.id LIMIT ?`, store.SnapshotDeleted, store.SnapshotExpired, store.SnapshotFailed, limit)
}

func (q queries) listSnapshots(ctx context.Context, query string, args ...any) ([]store.Snapshot, error) {
	rows, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list snapshots: %w", err)
	}
	defer rows.Close()
	out := []store.Snapshot{}
	for rows.Next() {
		s, err := scanSnapshot(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: scan snapshot: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list snapshots: %w", err)
	}
	return out, nil
}

func (q queries) UpdateSnapshot(ctx context.Context, s store.Snapshot) error {
	res, err := q.q.ExecContext(ctx, `UPDATE snapshots SET name = ?, note = ?, status = ?, busy_until = ?, locked = ?,
		lock_reason = ?, locked_at = ?, size_gb = ?, price_micros = ?, accrued_micros = ?, paid_micros = ?, renewal_due = ?,
		available_at = ?, expired_at = ?, image_ref = ?
		WHERE id = ?`,
		s.Name, s.Note, s.Status, nullTime(s.BusyUntil), s.Locked, s.LockReason, nullTime(s.LockedAt), s.SizeGB, s.Price,
		s.Accrued, s.Paid, nullTime(s.RenewalDue), nullTime(s.AvailableAt), nullTime(s.ExpiredAt), s.ImageRef, s.ID)
	return checkOneRow(res, err, "update snapshot", s.ID)
}

func (q queries) AdvanceSnapshotRenewal(ctx context.Context, id int64, from, to time.Time) error {
	res, err := q.q.ExecContext(ctx, `UPDATE snapshots SET renewal_due = ? WHERE id = ? AND renewal_due = ? AND status IN `+billedSnapshot,
		formatTime(to), id, formatTime(from))
	return guarded(res, err, "advance renewal of snapshot", id)
}

func (q queries) UnlockSnapshots(ctx context.Context, accountID int64, reason string) error {
	_, err := q.q.ExecContext(ctx, `UPDATE snapshots SET locked = 0, lock_reason = '', locked_at = NULL
		WHERE account_id = ? AND locked = 1 AND lock_reason = ?`, accountID, reason)
	if err != nil {
		return fmt.Errorf("sqlite: unlock snapshots of account %d: %w", accountID, err)
	}
	return nil
}

func (q queries) MarkImageDeleted(ctx context.Context, id int64) error {
	res, err := q.q.ExecContext(ctx, `UPDATE snapshots SET image_deleted = 1 WHERE id = ?`, id)
	return checkOneRow(res, err, "mark image deleted of snapshot", id)
}
