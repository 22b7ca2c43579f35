package service

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// LockInstance locks an active instance for reason (for example "debt", "traffic" or "abuse"),
// as support or the system would; operations on it then answer 409 instance_locked.
func (s *Service) LockInstance(ctx context.Context, id int64, reason string) error {
	return s.LockInstanceBy(ctx, Audit{Reason: reason}, id)
}

// LockInstanceBy is LockInstance run by an operator, for who.Reason; the trail shows the lock
// before and after.
func (s *Service) LockInstanceBy(ctx context.Context, who Audit, id int64) error {
	if who.Reason == "" {
		return Validation("reason", "is required")
	}
	return s.setLock(ctx, who, id, func(in *store.Instance) {
		in.Locked, in.LockReason, in.LockedAt = true, who.Reason, s.now()
	})
}

// UnlockInstance lifts the lock of an active instance.
func (s *Service) UnlockInstance(ctx context.Context, id int64) error {
	return s.UnlockInstanceBy(ctx, Audit{}, id)
}

// UnlockInstanceBy is UnlockInstance run by an operator.
func (s *Service) UnlockInstanceBy(ctx context.Context, who Audit, id int64) error {
	return s.setLock(ctx, who, id, func(in *store.Instance) {
		in.Locked, in.LockReason, in.LockedAt = false, "", time.Time{}
	})
}

// lockState is an instance's lock as the trail shows it.
func lockState(in store.Instance) state {
	return state{"locked": in.Locked, "lock_reason": in.LockReason}
}

func (s *Service) setLock(ctx context.Context, who Audit, id int64, change func(*store.Instance)) error {
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		in, err := tx.InstanceByID(ctx, id)
		if err != nil {
			return notFoundOr(err, "instance", "read instance")
		}
		if !in.Active {
			return fmt.Errorf("service: instance %d is %s; its lock cannot change", id, in.Status)
		}
		before := lockState(in)
		change(&in)
		if err := tx.UpdateInstance(ctx, in); err != nil {
			return err
		}
		return s.audit(ctx, tx, who, auditTarget{accountID: in.AccountID, instanceID: id}, before, lockState(in))
	})
	if err != nil {
		return fmt.Errorf("service: lock instance %d: %w", id, err)
	}
	return nil
}

// LockSnapshot locks an active snapshot (creating, available or restoring) for reason, as the
// system does when a charge of it is unpaid (store.LockUnpaid, the only reason the API documents
// and the one a top-up that pays the debt lifts); restores and builds from it then answer 409
// snapshot_locked. The lock starts now, which is what the unpaid grace (DebtGrace) counts from.
func (s *Service) LockSnapshot(ctx context.Context, id int64, reason string) error {
	if reason == "" {
		return Validation("reason", "is required")
	}
	return s.setSnapshotLock(ctx, id, func(snap *store.Snapshot) {
		snap.Locked, snap.LockReason, snap.LockedAt = true, reason, s.now()
	})
}

// UnlockSnapshot lifts the lock of an active snapshot, whatever its reason; a debt the lock was
// for stays owed.
func (s *Service) UnlockSnapshot(ctx context.Context, id int64) error {
	return s.setSnapshotLock(ctx, id, func(snap *store.Snapshot) {
		snap.Locked, snap.LockReason, snap.LockedAt = false, "", time.Time{}
	})
}

func (s *Service) setSnapshotLock(ctx context.Context, id int64, change func(*store.Snapshot)) error {
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		snap, err := tx.SnapshotByID(ctx, id)
		if err != nil {
			return notFoundOr(err, "snapshot", "read snapshot")
		}
		if !activeSnapshot(snap) {
			return fmt.Errorf("service: snapshot %d is %s; its lock cannot change", id, snap.Status)
		}
		change(&snap)
		return tx.UpdateSnapshot(ctx, snap)
	})
	if err != nil {
		return fmt.Errorf("service: lock snapshot %d: %w", id, err)
	}
	return nil
}

// MachineRef returns the datacenter's reference of an instance's machine.
func (s *Service) MachineRef(ctx context.Context, id int64) (string, error) {
	in, err := s.store.InstanceByID(ctx, id)
	if err != nil {
		return "", notFoundOr(err, "instance", "read instance")
	}
	return in.MachineRef, nil
}
