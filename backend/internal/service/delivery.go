package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// retryDelays are the waits after each failed attempt (spec: retried after 30 seconds and once
// more after 5 minutes, then never); a delivery gets len(retryDelays)+1 attempts.
var retryDelays = [...]time.Duration{30 * time.Second, 5 * time.Minute}

// deliveryWorkers bounds the attempts in flight at once, so a few slow receivers (each may take
// the full 15 seconds) cannot hold every connection.
const deliveryWorkers = 8

// DeliverDue makes every delivery attempt that is due: it claims each delivery with a lease (so
// replicas never send one attempt twice), sends up to deliveryWorkers at once and waits for
// them. It is the delivery worker's step; the server runs it in its own loop so a slow receiver
// never delays the other workers. All state is in the store: deliveries pending when the
// backend stopped are made by the next one.
func (s *Service) DeliverDue(ctx context.Context) error {
	now := s.now()
	due, err := s.store.DueDeliveries(ctx, now, workBatch)
	if err != nil {
		return fmt.Errorf("service: due deliveries: %w", err)
	}
	slots := make(chan struct{}, deliveryWorkers)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, d := range due {
		ok, err := s.store.ClaimDelivery(ctx, d.ID, now, now.Add(leaseFor))
		if err != nil {
			return fmt.Errorf("service: claim delivery: %w", err)
		}
		if !ok {
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			s.release(ctx, d)
			return ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if err := s.deliver(ctx, d); err != nil {
				s.log.ErrorContext(ctx, "deliver event", slog.String("delivery_id", d.ID), slog.Any("error", err))
			}
		}()
	}
	return nil
}

// deliver makes one attempt of a claimed delivery and records its outcome: delivered, due again
// after the next retry delay, or failed after the last attempt. A delivery whose account has no
// webhook any more is skipped. An attempt cut short because the backend is stopping is not
// counted: the delivery is released and made by the next backend.
func (s *Service) deliver(ctx context.Context, d store.Delivery) error {
	w, err := s.store.Webhook(ctx, d.AccountID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		d.Status, d.FinishedAt = store.DeliverySkipped, s.now()
		if err := s.store.UpdateDelivery(context.WithoutCancel(ctx), d); err != nil {
			return err
		}
		s.onDelivery(deliveryOutcome(d))
		return nil
	case err != nil:
		s.release(ctx, d)
		return err
	}
	attempted := s.attemptOnce(ctx, w, d)
	if ctx.Err() != nil {
		s.release(ctx, d)
		return nil //nolint:nilerr // the backend is stopping: not a failure of this delivery
	}
	if attempted.Status == store.DeliveryPending {
		at := s.now()
		if attempted.Attempts > len(retryDelays) {
			attempted.Status, attempted.FinishedAt = store.DeliveryFailed, at
		} else {
			attempted.NextAt = at.Add(retryDelays[attempted.Attempts-1])
		}
	}
	if err := s.store.UpdateDelivery(context.WithoutCancel(ctx), attempted); err != nil {
		return fmt.Errorf("service: record delivery attempt: %w", err)
	}
	s.onDelivery(deliveryOutcome(attempted))
	return nil
}

// release drops the lease of a claimed delivery without recording an attempt.
func (s *Service) release(ctx context.Context, d store.Delivery) {
	if err := s.store.UpdateDelivery(context.WithoutCancel(ctx), d); err != nil {
		s.log.ErrorContext(ctx, "release delivery", slog.String("delivery_id", d.ID), slog.Any("error", err))
	}
}
