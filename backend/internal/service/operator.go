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
	if reason == "" {
		return Validation("reason", "is required")
	}
	return s.setLock(ctx, id, func(in *store.Instance) {
		in.Locked, in.LockReason, in.LockedAt = true, reason, s.now()
	})
}

// UnlockInstance lifts the lock of an active instance.
func (s *Service) UnlockInstance(ctx context.Context, id int64) error {
	return s.setLock(ctx, id, func(in *store.Instance) {
		in.Locked, in.LockReason, in.LockedAt = false, "", time.Time{}
	})
}

func (s *Service) setLock(ctx context.Context, id int64, change func(*store.Instance)) error {
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		in, err := tx.InstanceByID(ctx, id)
		if err != nil {
			return notFoundOr(err, "instance", "read instance")
		}
		if !in.Active {
			return fmt.Errorf("service: instance %d is %s; its lock cannot change", id, in.Status)
		}
		change(&in)
		return tx.UpdateInstance(ctx, in)
	})
	if err != nil {
		return fmt.Errorf("service: lock instance %d: %w", id, err)
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
