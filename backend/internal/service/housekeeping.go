package service

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// purgeEvery is how often expired idempotency keys are deleted. Expiry itself is exact (an
// expired key is ignored when read); the purge only keeps the table small, so it need not take
// the write lock on every tick.
const purgeEvery = time.Minute

// purger remembers when expired keys were last deleted.
type purger struct {
	mu   sync.Mutex
	last time.Time
}

// again makes the next call of due report true: the last purge left work.
func (p *purger) again() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = time.Time{}
}

// due reports whether a purge is due at now, and if so records it as done.
func (p *purger) due(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.last.IsZero() && now.Sub(p.last) < purgeEvery && !now.Before(p.last) {
		return false
	}
	p.last = now
	return true
}

// HousekeepDue forgets expired idempotency keys, purges what retention allows (purgeRetained),
// and deletes, at the datacenter, the machines of
// canceled and expired instances (the "provider-side deletion queued" of a cancel) and the
// images of deleted, expired and failed snapshots. A deletion the datacenter refuses is retried
// at the next tick.
func (s *Service) HousekeepDue(ctx context.Context) error {
	now := s.now()
	if s.purge.due(now) {
		if _, err := s.store.DeleteIdempotencyKeys(ctx, now.Add(-IdempotencyRetention)); err != nil {
			return fmt.Errorf("service: forget idempotency keys: %w", err)
		}
	}
	if s.retention.due(now) {
		if err := s.purgeRetained(ctx, now); err != nil {
			// The datacenter deletions below must not wait for the purge to work again.
			s.log.ErrorContext(ctx, "retention purge", slog.Any("error", err))
		}
	}
	gone, err := s.store.UndeletedMachines(ctx, workBatch)
	if err != nil {
		return fmt.Errorf("service: undeleted machines: %w", err)
	}
	for _, in := range gone {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.dc.Delete(ctx, in.MachineRef); err != nil {
			s.log.WarnContext(ctx, "delete machine; retrying later", slog.Int64("instance_id", in.ID), slog.Any("error", err))
			continue
		}
		if err := s.store.MarkMachineDeleted(ctx, in.ID); err != nil {
			return fmt.Errorf("service: mark machine deleted: %w", err)
		}
	}
	return s.deleteImages(ctx)
}

// deleteImages deletes the images of snapshots that have ended.
func (s *Service) deleteImages(ctx context.Context) error {
	ended, err := s.store.UndeletedImages(ctx, workBatch)
	if err != nil {
		return fmt.Errorf("service: undeleted images: %w", err)
	}
	for _, snap := range ended {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.dc.DeleteSnapshot(ctx, snap.ImageRef); err != nil {
			s.log.WarnContext(ctx, "delete snapshot image; retrying later", slog.Int64("snapshot_id", snap.ID), slog.Any("error", err))
			continue
		}
		if err := s.store.MarkImageDeleted(ctx, snap.ID); err != nil {
			return fmt.Errorf("service: mark image deleted: %w", err)
		}
	}
	return nil
}
