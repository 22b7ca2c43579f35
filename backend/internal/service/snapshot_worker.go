package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// snapshotChargeThreshold is when accrued snapshot money is charged to the wallet (spec: once
// the accrued amount reaches one tenth of a cent). The whole accrued amount is charged then, so
// what accrues below it is carried to the next hour, never rounded away.
const snapshotChargeThreshold money.Micros = 1_000

// SnapshotsDue moves snapshots forward: it starts the images of new snapshots, polls those
// being made, settles finished restores, and accounts every snapshot hour that has come due,
// earliest first. It is the snapshot worker's step; all its state is in the store.
func (s *Service) SnapshotsDue(ctx context.Context) error {
	open, err := s.store.OpenSnapshots(ctx, workBatch)
	if err != nil {
		return fmt.Errorf("service: open snapshots: %w", err)
	}
	for _, snap := range open {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.advance(ctx, snap); err != nil {
			s.log.ErrorContext(ctx, "advance snapshot", slog.Int64("snapshot_id", snap.ID), slog.Any("error", err))
		}
	}
	return s.billSnapshotsDue(ctx)
}

// AdvanceSnapshot moves the one snapshot id forward once, as SnapshotsDue moves every open
// snapshot (without the hourly accounting, which is the worker's), and does nothing to a
// snapshot that is neither creating nor restoring. `resellerd seed` drives its own snapshots
// with it, so seeding a live database touches no other account's snapshot.
func (s *Service) AdvanceSnapshot(ctx context.Context, id int64) error {
	snap, err := s.store.SnapshotByID(ctx, id)
	if err != nil {
		return fmt.Errorf("service: snapshot %d: %w", id, err)
	}
	if snap.Status != store.SnapshotCreating && snap.Status != store.SnapshotRestoring {
		return nil
	}
	return s.advance(ctx, snap)
}

func (s *Service) advance(ctx context.Context, snap store.Snapshot) error {
	if snap.Status == store.SnapshotCreating {
		return s.advanceCreating(ctx, snap)
	}
	if !snap.Next.Due(s.now()) {
		return nil
	}
	return s.store.WithTx(ctx, func(tx store.Tx) error {
		cur, err := tx.SnapshotByID(ctx, snap.ID)
		if err != nil {
			return err
		}
		cur.Next.Settle(&cur.Status, s.now())
		return tx.UpdateSnapshot(ctx, cur)
	})
}

// advanceCreating starts the image of a creating snapshot if it has none yet, then polls it: a
// finished image makes the snapshot available (and starts its billing), a failed one makes it
// failed. An image the datacenter would not start within the order window fails the snapshot.
func (s *Service) advanceCreating(ctx context.Context, snap store.Snapshot) error {
	if snap.ImageRef == "" {
		image, err := s.startImage(ctx, snap)
		if err != nil {
			if s.now().Before(snap.CreatedAt.Add(s.orderWindow)) {
				s.log.WarnContext(ctx, "start snapshot image; retrying", slog.Int64("snapshot_id", snap.ID), slog.Any("error", err))
				return nil
			}
			return s.finishCreating(ctx, snap.ID, datacenter.SnapshotImage{Done: true, Failed: true, ReadyAt: s.now()})
		}
		snap.ImageRef = image
	}
	img, err := s.dc.PollSnapshot(ctx, snap.ImageRef)
	if err != nil {
		s.log.WarnContext(ctx, "poll snapshot image", slog.Int64("snapshot_id", snap.ID), slog.Any("error", err))
		return nil
	}
	if !img.Done {
		return nil
	}
	return s.finishCreating(ctx, snap.ID, img)
}

// startImage asks the datacenter for the image and records its id. Two workers may both ask:
// the datacenter answers one snapshot id with one image, and only the first id is recorded.
func (s *Service) startImage(ctx context.Context, snap store.Snapshot) (string, error) {
	in, err := s.store.InstanceByID(ctx, snap.InstanceID)
	if err != nil {
		return "", err
	}
	plan, _ := s.catalog.Plan(snap.PlanID)
	image, err := s.dc.CreateSnapshot(ctx, datacenter.SnapshotSpec{SnapshotID: snap.ID, Ref: in.MachineRef,
		DatacenterID: snap.DatacenterID, DiskGB: plan.DiskGB})
	if err != nil {
		return "", err
	}
	err = s.store.WithTx(ctx, func(tx store.Tx) error {
		cur, err := tx.SnapshotByID(ctx, snap.ID)
		if err != nil || cur.ImageRef != "" {
			return err
		}
		cur.ImageRef = image
		return tx.UpdateSnapshot(ctx, cur)
	})
	return image, err
}

// finishCreating records a finished image on a snapshot still creating: failed, or available
// with its real size, its price fixed from that size and its first hour accrued.
func (s *Service) finishCreating(ctx context.Context, id int64, img datacenter.SnapshotImage) error {
	return s.store.WithTx(ctx, func(tx store.Tx) error {
		snap, err := tx.SnapshotByID(ctx, id)
		if err != nil {
			return err
		}
		if snap.Status != store.SnapshotCreating {
			return nil // deleted meanwhile, or finished by another worker
		}
		if img.Failed {
			endSnapshot(&snap, store.SnapshotFailed, img.ReadyAt)
			return tx.UpdateSnapshot(ctx, snap)
		}
		dc, _ := s.catalog.Datacenter(snap.DatacenterID)
		snap.Status, snap.SizeGB = store.SnapshotAvailable, img.SizeGB
		snap.Price = snapshotHourly(dc.Snapshots.PricePerGBMonth, img.SizeGB)
		snap.AvailableAt, snap.RenewalDue = img.ReadyAt, img.ReadyAt.Add(catalog.BillingHour)
		if err := s.accrue(ctx, tx, &snap, img.ReadyAt); err != nil {
			return err
		}
		return tx.UpdateSnapshot(ctx, snap)
	})
}

// billSnapshotsDue accounts every snapshot hour that has come due, earliest first, like
// BillDue does for instances.
func (s *Service) billSnapshotsDue(ctx context.Context) error {
	now := s.now()
	for range maxBillingRounds {
		due, err := s.store.DueSnapshotRenewals(ctx, now, workBatch)
		if err != nil {
			return fmt.Errorf("service: due snapshot renewals: %w", err)
		}
		if len(due) == 0 {
			return nil
		}
		for _, snap := range due {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.renewSnapshot(ctx, snap.ID, now); err != nil {
				return fmt.Errorf("service: renew snapshot %d: %w", snap.ID, err)
			}
		}
	}
	return nil
}

// renewSnapshot accounts one due hour of a snapshot in one transaction, claimed by a guarded
// update of renewal_due so two workers never account it twice. A snapshot locked for an unpaid
// charge for DebtGrace expires instead, like an instance canceled for debt.
func (s *Service) renewSnapshot(ctx context.Context, id int64, now time.Time) error {
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		snap, err := tx.SnapshotByID(ctx, id)
		if err != nil {
			return err
		}
		if !billed(snap) || snap.RenewalDue.After(now) {
			return nil
		}
		due := snap.RenewalDue
		if snap.Locked && snap.LockReason == store.LockUnpaid && !due.Before(snap.LockedAt.Add(DebtGrace)) {
			endSnapshot(&snap, store.SnapshotExpired, due)
			return tx.UpdateSnapshot(ctx, snap)
		}
		if err := tx.AdvanceSnapshotRenewal(ctx, snap.ID, due, due.Add(catalog.BillingHour)); err != nil {
			return err
		}
		snap.RenewalDue = due.Add(catalog.BillingHour)
		if err := s.accrue(ctx, tx, &snap, due); err != nil {
			return err
		}
		snap.Next.Settle(&snap.Status, now)
		return tx.UpdateSnapshot(ctx, snap)
	})
	if errors.Is(err, store.ErrConflict) {
		return nil // another worker accounted this hour
	}
	return err
}

// accrue adds the hour starting at hour to what the snapshot owes and, once that reaches the
// charging threshold, charges all of it with one ledger entry. What the balance cannot cover is
// booked as debt and locks the snapshot (unpaid) until a top-up pays the debt.
func (s *Service) accrue(ctx context.Context, tx store.Tx, snap *store.Snapshot, hour time.Time) error {
	snap.Accrued += snap.Price
	if snap.Accrued < snapshotChargeThreshold {
		return nil
	}
	amount := snap.Accrued
	debt, err := s.charge(ctx, tx, snap.AccountID, amount, store.LedgerSnapshot, snapshotRef(snap.ID, hour))
	if err != nil {
		return err
	}
	snap.Paid, snap.Accrued = snap.Paid+amount, 0
	if debt > 0 && !snap.Locked {
		snap.Locked, snap.LockReason, snap.LockedAt = true, store.LockUnpaid, hour
	}
	return nil
}

// snapshotRef is the ledger reference of a snapshot charge made at the hour starting at hour.
func snapshotRef(id int64, hour time.Time) string {
	return "snapshot:" + strconv.FormatInt(id, 10) + ":" + hour.UTC().Format(time.RFC3339)
}
