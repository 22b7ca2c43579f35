package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// snapshotColumns reads a snapshot joined with its source instance (alias i), whose active flag
// is SourceActive.
const snapshotColumns = `s.id, s.account_id, s.instance_id, COALESCE(i.active, FALSE), s.name, s.note, s.status, s.next_status, s.next_status_at,
	s.locked, s.lock_reason, s.locked_at, s.size_gb, s.price_micros, s.accrued_micros, s.paid_micros, s.renewal_due,
	s.created_at, s.available_at, s.expired_at, s.datacenter_id, s.location_id, s.template_id, s.plan_id, s.os_type,
	s.architecture, s.source_name, s.features, s.local, s.username, s.password, s.port, s.image_ref,
	s.image_deleted`

// selectSnapshots starts every snapshot read.
const selectSnapshots = `SELECT ` + snapshotColumns + ` FROM snapshots s LEFT JOIN instances i ON i.id = s.instance_id `

// activeSnapshot is the SQL list of the statuses that count as active.
const activeSnapshot = `('` + store.SnapshotCreating + `', '` + store.SnapshotAvailable + `', '` + store.SnapshotRestoring + `')`

// billedSnapshot is the SQL list of the statuses that are billed.
const billedSnapshot = `('` + store.SnapshotAvailable + `', '` + store.SnapshotRestoring + `')`

// scanSnapshot reads a snapshot and opens its password.
func (q queries) scanSnapshot(r rowScanner) (store.Snapshot, error) {
	var s store.Snapshot
	err := r.Scan(&s.ID, &s.AccountID, &s.InstanceID, &s.SourceActive, &s.Name, &s.Note, &s.Status, &s.Next.Status, at(&s.Next.At),
		&s.Locked, &s.LockReason, at(&s.LockedAt), &s.SizeGB, &s.Price, &s.Accrued, &s.Paid, at(&s.RenewalDue),
		at(&s.CreatedAt), at(&s.AvailableAt), at(&s.ExpiredAt), &s.DatacenterID, &s.LocationID, &s.TemplateID,
		&s.PlanID, &s.OSType, &s.Architecture, &s.SourceName, jsonColumn{&s.Features}, &s.Local, &s.Username,
		&s.Password, &s.Port, &s.ImageRef, &s.ImageGone)
	if err != nil {
		return store.Snapshot{}, err
	}
	s.Password, err = q.open(snapshotPassword, s.ID, s.AccountID, s.Password)
	return s, err
}

func (q queries) CreateSnapshot(ctx context.Context, s store.Snapshot) (store.Snapshot, error) {
	features, err := jsonText(s.Features, "[]")
	if err != nil {
		return store.Snapshot{}, err
	}
	password, err := q.insertValue(snapshotPassword, s.Password)
	if err != nil {
		return store.Snapshot{}, err
	}
	if err := q.lockAccount(ctx, s.AccountID); err != nil {
		return store.Snapshot{}, err
	}
	err = q.queryRow(ctx, `INSERT INTO snapshots (account_id, instance_id, name, note, status, next_status, next_status_at, locked,
		lock_reason, locked_at, size_gb, price_micros, accrued_micros, paid_micros, renewal_due, created_at, available_at,
		expired_at, datacenter_id, location_id, template_id, plan_id, os_type, architecture, source_name, features, local,
		username, password, port, image_ref)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		s.AccountID, s.InstanceID, s.Name, s.Note, s.Status, s.Next.Status, nullTime(s.Next.At), s.Locked, s.LockReason,
		nullTime(s.LockedAt), s.SizeGB, s.Price, s.Accrued, s.Paid, nullTime(s.RenewalDue), s.CreatedAt,
		nullTime(s.AvailableAt), nullTime(s.ExpiredAt), s.DatacenterID, s.LocationID, s.TemplateID, s.PlanID, s.OSType,
		s.Architecture, s.SourceName, features, s.Local, s.Username, password, s.Port, s.ImageRef).Scan(&s.ID)
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("sqlstore: create snapshot: %w", err)
	}
	if err := q.sealInserted(ctx, snapshotPassword, []newSecret{{row: s.ID, owner: s.AccountID, plain: s.Password}}); err != nil {
		return store.Snapshot{}, err
	}
	if err := q.walletChanged(ctx, s.AccountID); err != nil {
		return store.Snapshot{}, err
	}
	// Read back so SourceActive reflects the instance.
	return q.SnapshotByID(ctx, s.ID)
}

func (q queries) Snapshot(ctx context.Context, accountID, id int64) (store.Snapshot, error) {
	return one(ctx, q, tableSnapshots, id, q.scanSnapshot, selectSnapshots+`WHERE s.id = ? AND s.account_id = ?`, id, accountID)
}

func (q queries) SnapshotByID(ctx context.Context, id int64) (store.Snapshot, error) {
	return one(ctx, q, tableSnapshots, id, q.scanSnapshot, selectSnapshots+`WHERE s.id = ?`, id)
}

func (q queries) Snapshots(ctx context.Context, accountID int64, includeInactive bool) ([]store.Snapshot, error) {
	if includeInactive {
		return list(ctx, q, "snapshots", q.scanSnapshot, selectSnapshots+`WHERE s.account_id = ? ORDER BY s.id DESC`, accountID)
	}
	return list(ctx, q, "snapshots", q.scanSnapshot, selectSnapshots+`WHERE s.account_id = ? AND s.status IN `+activeSnapshot+`
		ORDER BY s.id DESC`, accountID)
}

func (q queries) InstanceSnapshots(ctx context.Context, instanceID int64) ([]store.Snapshot, error) {
	return list(ctx, q, "snapshots", q.scanSnapshot, selectSnapshots+`WHERE s.instance_id = ? ORDER BY s.id DESC`, instanceID)
}

func (q queries) OpenSnapshots(ctx context.Context, limit int) ([]store.Snapshot, error) {
	return list(ctx, q, "snapshots", q.scanSnapshot, selectSnapshots+`WHERE s.status IN (?, ?) ORDER BY s.id LIMIT ?`+
		q.workerLock(snapshotSkipLocked), store.SnapshotCreating, store.SnapshotRestoring, limit)
}

func (q queries) DueSnapshotRenewals(ctx context.Context, now time.Time, limit int) ([]store.Snapshot, error) {
	return list(ctx, q, "snapshots", q.scanSnapshot, selectSnapshots+`WHERE s.status IN `+billedSnapshot+`
		AND s.renewal_due <= ? ORDER BY s.renewal_due, s.id LIMIT ?`+q.workerLock(snapshotSkipLocked), now, limit)
}

// imageUndeleted selects (alias s) the ended snapshots whose image the datacenter still keeps.
// It names the ended statuses as literals: they are the partial index snapshots_image_undeleted's
// own condition, which the planner can only match against constants.
const imageUndeleted = `s.status IN ('deleted', 'expired', 'failed') AND s.image_ref != '' AND NOT s.image_deleted`

func (q queries) UndeletedImages(ctx context.Context, limit int) ([]store.Snapshot, error) {
	return list(ctx, q, "snapshots", q.scanSnapshot, selectSnapshots+`WHERE `+imageUndeleted+`
		ORDER BY s.id LIMIT ?`+q.workerLock(snapshotSkipLocked), limit)
}

func (q queries) UpdateSnapshot(ctx context.Context, s store.Snapshot) error {
	if err := q.lockAccount(ctx, s.AccountID); err != nil { // account_id never changes
		return err
	}
	if err := q.snapshotWalletChanged(ctx, s); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE snapshots SET name = ?, note = ?, status = ?, next_status = ?, next_status_at = ?, locked = ?,
		lock_reason = ?, locked_at = ?, size_gb = ?, price_micros = ?, accrued_micros = ?, paid_micros = ?,
		renewal_due = ?, available_at = ?, expired_at = ?, image_ref = ?
		WHERE id = ?`,
		s.Name, s.Note, s.Status, s.Next.Status, nullTime(s.Next.At), s.Locked, s.LockReason, nullTime(s.LockedAt), s.SizeGB, s.Price,
		s.Accrued, s.Paid, nullTime(s.RenewalDue), nullTime(s.AvailableAt), nullTime(s.ExpiredAt), s.ImageRef, s.ID)
	return checkOneRow(res, err, "update snapshot", s.ID)
}

func (q queries) AdvanceSnapshotRenewal(ctx context.Context, id int64, from, to time.Time) error {
	if err := q.lockOwner(ctx, tableSnapshots, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE snapshots SET renewal_due = ? WHERE id = ? AND renewal_due = ? AND status IN `+billedSnapshot,
		to, id, from)
	return guarded(res, err, "advance renewal of snapshot", id)
}

func (q queries) UnlockSnapshots(ctx context.Context, accountID int64, reason string) error {
	if err := q.lockAccount(ctx, accountID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `UPDATE snapshots SET locked = FALSE, lock_reason = '', locked_at = NULL
		WHERE account_id = ? AND locked AND lock_reason = ?`, accountID, reason)
	if err != nil {
		return fmt.Errorf("sqlstore: unlock snapshots of account %d: %w", accountID, err)
	}
	return nil
}

func (q queries) MarkImageDeleted(ctx context.Context, id int64) error {
	if err := q.lockOwner(ctx, tableSnapshots, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `UPDATE snapshots SET image_deleted = TRUE WHERE id = ?`, id)
	return checkOneRow(res, err, "mark image deleted of snapshot", id)
}
