package service

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// SnapshotView is a snapshot with what the API shows beside it.
type SnapshotView struct {
	store.Snapshot
	// Status is the status now: a restore that has settled shows available even before the
	// store caught up.
	Status       string
	Settings     catalog.SnapshotSettings // of the snapshot's datacenter
	Features     []catalog.Feature        // the features the source instance had
	PriceMonthly money.Micros             // Price over a month of catalog.HoursPerMonth hours
}

// InstanceSnapshots is GET /instances/{id}/snapshots: the instance's active snapshots and its
// datacenter's snapshot settings (nil where it offers none).
type InstanceSnapshots struct {
	Settings  *catalog.SnapshotSettings
	Snapshots []SnapshotView
}

// billed reports whether a snapshot is accounted by the hour: available, or being restored.
func billed(snap store.Snapshot) bool {
	return snap.Status == store.SnapshotAvailable || snap.Status == store.SnapshotRestoring
}

// activeSnapshot reports whether a snapshot exists for the client: it counts against the
// per-instance cap and is listed without include_inactive.
func activeSnapshot(snap store.Snapshot) bool {
	return snap.Status == store.SnapshotCreating || billed(snap)
}

// snapshotHourly is the hourly price of a snapshot of sizeGB: the monthly price per GB times the
// size over a month of catalog.HoursPerMonth hours, in whole micro-USD rounded half up (README).
func snapshotHourly(perGBMonth money.Micros, sizeGB int) money.Micros {
	n := int64(perGBMonth) * int64(sizeGB)
	return money.Micros((n + catalog.HoursPerMonth/2) / catalog.HoursPerMonth)
}

// endSnapshot ends a snapshot as of at with status (deleted, expired or failed): billing stops,
// and what accrued below the charging threshold is written off.
func endSnapshot(snap *store.Snapshot, status string, at time.Time) {
	snap.Status, snap.ExpiredAt = status, at
	snap.RenewalDue, snap.Next, snap.Accrued = time.Time{}, store.Pending{}, 0
}

func (s *Service) viewSnapshot(snap store.Snapshot) SnapshotView {
	dc, _ := s.catalog.Datacenter(snap.DatacenterID)
	v := SnapshotView{Snapshot: snap, Status: snap.Next.StatusAt(snap.Status, s.now()), Settings: dc.Snapshots,
		PriceMonthly: snap.Price * catalog.HoursPerMonth}
	for _, id := range snap.Features {
		if f, ok := s.catalog.Feature(id); ok {
			v.Features = append(v.Features, f)
		}
	}
	return v
}

func (s *Service) viewSnapshots(list []store.Snapshot) []SnapshotView {
	out := make([]SnapshotView, 0, len(list))
	for _, snap := range list {
		out = append(out, s.viewSnapshot(snap))
	}
	return out
}

// snapshot reads a snapshot of the account; another account's is 404.
func (s *Service) snapshot(ctx context.Context, q store.Queries, accountID, id int64) (store.Snapshot, error) {
	snap, err := q.Snapshot(ctx, accountID, id)
	if err != nil {
		return store.Snapshot{}, notFoundOr(err, "snapshot", "read snapshot")
	}
	return snap, nil
}

// Snapshots lists the account's snapshots, newest first, those whose instance is gone
// included; includeInactive adds the deleted, expired and failed ones.
func (s *Service) Snapshots(ctx context.Context, acct store.Account, includeInactive bool) ([]SnapshotView, error) {
	list, err := s.store.Snapshots(ctx, acct.ID, includeInactive)
	if err != nil {
		return nil, Internal(fmt.Errorf("service: list snapshots: %w", err))
	}
	return s.viewSnapshots(list), nil
}

// Snapshot returns one snapshot of the account. Polling a creating snapshot asks the
// datacenter whether its image is ready (spec: the trigger of available), as the snapshot worker
// also does on every tick.
func (s *Service) Snapshot(ctx context.Context, acct store.Account, id int64) (SnapshotView, error) {
	snap, err := s.snapshot(ctx, s.store, acct.ID, id)
	if err != nil {
		return SnapshotView{}, err
	}
	if snap.Status == store.SnapshotCreating {
		if err := s.advanceCreating(ctx, snap); err != nil {
			return SnapshotView{}, Internal(err)
		}
		if snap, err = s.snapshot(ctx, s.store, acct.ID, id); err != nil {
			return SnapshotView{}, err
		}
	}
	return s.viewSnapshot(snap), nil
}

// InstanceSnapshots lists the active snapshots taken from an instance of the account, newest
// first, with its datacenter's snapshot settings.
func (s *Service) InstanceSnapshots(ctx context.Context, acct store.Account, instanceID int64) (InstanceSnapshots, error) {
	in, err := s.instance(ctx, s.store, acct.ID, instanceID)
	if err != nil {
		return InstanceSnapshots{}, err
	}
	list, err := s.store.InstanceSnapshots(ctx, in.ID)
	if err != nil {
		return InstanceSnapshots{}, Internal(fmt.Errorf("service: list snapshots of instance %d: %w", in.ID, err))
	}
	out := InstanceSnapshots{Snapshots: []SnapshotView{}}
	for _, snap := range list {
		if activeSnapshot(snap) {
			out.Snapshots = append(out.Snapshots, s.viewSnapshot(snap))
		}
	}
	if dc, ok := s.catalog.Datacenter(in.DatacenterID); ok && dc.Snapshots.Offered() {
		out.Settings = &dc.Snapshots
	}
	return out, nil
}

// SnapshotRequest is the body of POST /instances/{id}/snapshots; a nil Name takes the default.
type SnapshotRequest struct {
	Name *string
}

// CreateSnapshot takes a snapshot of an instance: it starts in creating while the server keeps
// running, and snapshot.created is emitted with it. Creating is free: billing starts when the
// image is available. The instance must be operable (409 instance_locked), its datacenter open
// to the account and selling snapshots (403), the instance under its datacenter's cap (409
// snapshot_limit_reached), and the wallet able to pay one hour of a snapshot as big as the plan's
// disk (402), so a snapshot is never taken that could not be paid for at once.
func (s *Service) CreateSnapshot(ctx context.Context, acct store.Account, instanceID int64, req SnapshotRequest) (SnapshotView, error) {
	if req.Name != nil {
		if err := checkName(*req.Name); err != nil {
			return SnapshotView{}, err
		}
	}
	var out store.Snapshot
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		in, err := s.operable(ctx, tx, acct.ID, instanceID)
		if err != nil {
			return err
		}
		settings, err := s.snapshotSettings(acct, in.DatacenterID)
		if err != nil {
			return err
		}
		if err := s.checkSnapshotCap(ctx, tx, in.ID, settings.PerInstanceCap); err != nil {
			return err
		}
		plan, _ := s.catalog.Plan(in.PlanID)
		if err := s.checkFunds(ctx, tx, acct.ID, snapshotHourly(settings.PricePerGBMonth, plan.DiskGB)); err != nil {
			return err
		}
		if out, err = tx.CreateSnapshot(ctx, s.newSnapshot(in, plan, settings, req.Name)); err != nil {
			return err
		}
		return s.emit(ctx, tx, acct.ID, EventSnapshotCreated, snapshotEventData{SnapshotID: out.ID, InstanceID: in.ID})
	})
	if err != nil {
		return SnapshotView{}, asServiceError(err, "create snapshot")
	}
	return s.viewSnapshot(out), nil
}

// snapshotSettings returns the snapshot settings of a datacenter the account may use: 403 when
// it is closed to the account or sells no snapshots.
func (s *Service) snapshotSettings(acct store.Account, datacenterID int64) (catalog.SnapshotSettings, error) {
	dc, ok := s.catalog.Datacenter(datacenterID)
	if !ok || !datacenterOpen(acct, dc) {
		return catalog.SnapshotSettings{}, Forbidden(fmt.Sprintf("datacenter %d is closed to this account", datacenterID))
	}
	if !dc.Snapshots.Offered() {
		return catalog.SnapshotSettings{}, Forbidden(fmt.Sprintf("datacenter %d offers no snapshots", datacenterID))
	}
	return dc.Snapshots, nil
}

// checkSnapshotCap refuses a snapshot beyond the datacenter's per-instance cap; deleted, expired
// and failed snapshots do not count.
func (s *Service) checkSnapshotCap(ctx context.Context, tx store.Tx, instanceID int64, limit int) error {
	list, err := tx.InstanceSnapshots(ctx, instanceID)
	if err != nil {
		return err
	}
	n := 0
	for _, snap := range list {
		if activeSnapshot(snap) {
			n++
		}
	}
	if n >= limit {
		return Conflict(CodeSnapshotLimitReached, "instance %d has %d snapshots, the most its datacenter keeps; delete one first", instanceID, n)
	}
	return nil
}

// newSnapshot is the row of a snapshot of in, as the instance is now: its OS, plan, features
// and credentials are what the image holds.
func (s *Service) newSnapshot(in store.Instance, plan catalog.Plan, settings catalog.SnapshotSettings, name *string) store.Snapshot {
	now := s.now()
	tmpl, _ := s.catalog.Template(in.TemplateID)
	snap := store.Snapshot{
		AccountID: in.AccountID, InstanceID: in.ID, Name: defaultSnapshotName(in.Name, now), Status: store.SnapshotCreating,
		CreatedAt: now, DatacenterID: in.DatacenterID, LocationID: in.LocationID, TemplateID: in.TemplateID, PlanID: in.PlanID,
		OSType: tmpl.OSType, Architecture: plan.Architecture, SourceName: in.Name, Features: in.Features, Local: settings.Local,
		Username: in.Username, Password: in.Password, Port: in.Port,
	}
	if name != nil {
		snap.Name = *name
	}
	return snap
}

// snapshotStamp is the time in a default snapshot name.
const snapshotStamp = "2006-01-02 15:04:05"

// defaultSnapshotName is the instance's name and the time, the name shortened so the whole
// stays within the 64 characters a name may have.
func defaultSnapshotName(instanceName string, now time.Time) string {
	stamp := now.Format(snapshotStamp)
	name := []rune(instanceName)
	if room := maxName - 1 - len(stamp); len(name) > room {
		name = name[:room]
	}
	return string(name) + " " + stamp
}

// SnapshotUpdate is the body of PATCH /snapshots/{id}; nil leaves a field unchanged and an
// empty note clears it.
type SnapshotUpdate struct {
	Name *string
	Note *string
}

// UpdateSnapshot renames a snapshot or sets its note; it works in every status.
func (s *Service) UpdateSnapshot(ctx context.Context, acct store.Account, id int64, u SnapshotUpdate) (SnapshotView, error) {
	if err := (InstanceUpdate{Name: u.Name, Note: u.Note}).validate(); err != nil {
		return SnapshotView{}, err
	}
	var out store.Snapshot
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		snap, err := s.snapshot(ctx, tx, acct.ID, id)
		if err != nil {
			return err
		}
		if u.Name != nil {
			snap.Name = *u.Name
		}
		if u.Note != nil {
			snap.Note = *u.Note
		}
		out = snap
		return tx.UpdateSnapshot(ctx, snap)
	})
	if err != nil {
		return SnapshotView{}, asServiceError(err, "update snapshot")
	}
	return s.viewSnapshot(out), nil
}

// DeleteSnapshot deletes a snapshot: billing stops, nothing is refunded, and snapshot.deleted
// is emitted; the image is deleted at the datacenter by the housekeeping worker. Deleting a
// snapshot that is already deleted, expired or failed changes nothing and answers the same, so
// the call is safe to repeat; one being restored is 409 snapshot_unavailable until the restore
// settles. A snapshot locked for an unpaid charge can be deleted; the debt stays owed.
func (s *Service) DeleteSnapshot(ctx context.Context, acct store.Account, id int64) (SnapshotView, error) {
	var out store.Snapshot
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		snap, err := s.snapshot(ctx, tx, acct.ID, id)
		if err != nil {
			return err
		}
		now := s.now()
		snap.Next.Settle(&snap.Status, now)
		out = snap
		switch snap.Status {
		case store.SnapshotDeleted, store.SnapshotExpired, store.SnapshotFailed:
			return nil
		case store.SnapshotRestoring:
			return Conflict(CodeSnapshotUnavailable, "snapshot %d is being restored; delete it once the restore has finished", snap.ID)
		}
		endSnapshot(&snap, store.SnapshotDeleted, now)
		out = snap
		if err := tx.UpdateSnapshot(ctx, snap); err != nil {
			return err
		}
		return s.emit(ctx, tx, acct.ID, EventSnapshotDeleted, snapshotDeletedData{SnapshotID: snap.ID})
	})
	if err != nil {
		return SnapshotView{}, asServiceError(err, "delete snapshot")
	}
	return s.viewSnapshot(out), nil
}

// RestoreSnapshot puts a snapshot back onto its source instance in place: the instance is
// restoring and then off, keeps its addresses, and its disk, OS and credentials become the
// snapshot's (the password is pending until the restore settles; app installs, which were on
// the old disk, are forgotten). The snapshot is restoring until then, and snapshot.restored is
// emitted. See restorable for the refusals; a datacenter failure is 502 and changes nothing.
func (s *Service) RestoreSnapshot(ctx context.Context, acct store.Account, id int64) (SnapshotView, error) {
	snap, err := s.restorable(ctx, s.store, acct, id)
	if err != nil {
		return SnapshotView{}, err
	}
	in, err := s.operable(ctx, s.store, acct.ID, snap.InstanceID)
	if err != nil {
		return SnapshotView{}, err
	}
	tr, err := s.dc.RestoreSnapshot(ctx, in.MachineRef, snap.ImageRef)
	if err != nil {
		return SnapshotView{}, ProviderFailure(err)
	}
	var out store.Snapshot
	err = s.commit(ctx, in, func(tx store.Tx, cur *store.Instance) error {
		// Checked again as things are now: the datacenter call took time.
		snap, err := s.restorable(ctx, tx, acct, id)
		if err != nil {
			return err
		}
		s.restoreOnto(cur, snap, tr.SettlesAt)
		transition(cur, tr)
		if err := tx.DeleteAppInstalls(ctx, cur.ID); err != nil {
			return err
		}
		snap.Status, snap.Next = store.SnapshotRestoring, store.PendingTo(store.SnapshotAvailable, tr.SettlesAt)
		if err := tx.UpdateSnapshot(ctx, snap); err != nil {
			return err
		}
		out = snap
		return s.emit(ctx, tx, acct.ID, EventSnapshotRestored, snapshotEventData{SnapshotID: snap.ID, InstanceID: cur.ID})
	})
	if err != nil {
		return SnapshotView{}, err
	}
	return s.viewSnapshot(out), nil
}

// restorable reads a snapshot that can be restored now: 404 when it is not the account's or its
// source instance is gone, 409 restore_unsupported where the datacenter offers only cloning,
// 409 snapshot_unavailable unless it is available, 409 snapshot_locked while a charge is
// unpaid, 403 when its datacenter is closed to the account.
func (s *Service) restorable(ctx context.Context, q store.Queries, acct store.Account, id int64) (store.Snapshot, error) {
	snap, err := s.snapshot(ctx, q, acct.ID, id)
	if err != nil {
		return store.Snapshot{}, err
	}
	settings, err := s.snapshotSettings(acct, snap.DatacenterID)
	if err != nil {
		return store.Snapshot{}, err
	}
	if !settings.Restore {
		return store.Snapshot{}, Conflict(CodeRestoreUnsupported, "datacenter %d offers no restore in place; build a new server from the snapshot instead", snap.DatacenterID)
	}
	if !snap.SourceActive {
		return store.Snapshot{}, NotFound(fmt.Sprintf("instance %d of snapshot %d", snap.InstanceID, snap.ID))
	}
	if err := usable(snap, s.now()); err != nil {
		return store.Snapshot{}, err
	}
	snap.Next.Settle(&snap.Status, s.now())
	return snap, nil
}

// usable refuses a snapshot that cannot be restored or cloned now: 409 snapshot_unavailable
// unless it is available, 409 snapshot_locked while it is locked (a charge of it is unpaid, or
// an operator locked it).
func usable(snap store.Snapshot, now time.Time) error {
	if status := snap.Next.StatusAt(snap.Status, now); status != store.SnapshotAvailable {
		return Conflict(CodeSnapshotUnavailable, "snapshot %d is %s; only an available snapshot can be used", snap.ID, status)
	}
	switch {
	case snap.Locked && snap.LockReason == store.LockUnpaid:
		return Conflict(CodeSnapshotLocked, "snapshot %d is locked (%s) until its charges are paid; top up the wallet", snap.ID, snap.LockReason)
	case snap.Locked: // only an operator locks for another reason, and only support lifts it
		return Conflict(CodeSnapshotLocked, "snapshot %d is locked (%s); contact support", snap.ID, snap.LockReason)
	}
	return nil
}

// restoreOnto gives the instance the snapshot's disk: its OS (and the features that OS forces,
// billed from the next renewal) and its credentials, pending until the restore settles.
func (s *Service) restoreOnto(in *store.Instance, snap store.Snapshot, settles time.Time) {
	in.TemplateID = snap.TemplateID
	plan, _ := s.catalog.Plan(in.PlanID)
	for _, f := range s.catalog.ForcedFeatures(plan, snap.OSType) {
		if !slices.Contains(in.Features, f.ID) {
			in.Features = append(in.Features, f.ID)
		}
	}
	in.Username, in.Password, in.Port, in.CredentialsAt = snap.Username, snap.Password, snap.Port, settles
}

// expireLocalSnapshots ends, as of at, the active local snapshots of an instance that is being
// canceled or expires: they are restore points on its disk and go with it (README). It runs in
// the caller's transaction, with the instance's end.
func (s *Service) expireLocalSnapshots(ctx context.Context, tx store.Tx, instanceID int64, at time.Time) error {
	list, err := tx.InstanceSnapshots(ctx, instanceID)
	if err != nil {
		return err
	}
	for _, snap := range list {
		if !snap.Local || !activeSnapshot(snap) {
			continue
		}
		endSnapshot(&snap, store.SnapshotExpired, at)
		if err := tx.UpdateSnapshot(ctx, snap); err != nil {
			return err
		}
	}
	return nil
}
