package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// retryDelays are the waits after each failed attempt (spec: retried after 30 seconds and once
// more after 5 minutes, then never); a delivery gets len(retryDelays)+1 attempts.
var retryDelays = [...]time.Duration{30 * time.Second, 5 * time.Minute}

// fillRounds bounds how often one tick reads due deliveries again after the accounts it
// started attempts for became busy: enough for a backlog of a few accounts not to hide the
// others, bounded so a tick's work stays bounded.
const fillRounds = 4

// DeliverDue starts every delivery attempt that is due and has a slot (attemptPool): it claims
// each delivery with a lease (so replicas and later ticks never send one attempt twice) and
// starts the attempt in the background without waiting for it, so the slowest receiver
// delays no tick. Deliveries of accounts that have no slot left are not read, so one account's
// backlog never hides another's. The attempts run with ctx, which cancels them at shutdown;
// WaitDeliveries waits for them. All state is in the store: deliveries pending when the backend
// stopped are made by the next one.
func (s *Service) DeliverDue(ctx context.Context) error {
	_, err := s.startDue(ctx)
	return err
}

// DeliverAllDue makes every delivery attempt due at the clock's time and returns once they have
// all ended: as many rounds of DeliverDue as the slots need. It is RunDue's step (tests), where
// deterministic outcomes matter more than a tick that does not wait.
func (s *Service) DeliverAllDue(ctx context.Context) error {
	for range workBatch { // bounded: a delivery the store cannot record is due again at once
		started, err := s.startDue(ctx)
		s.attempts.wait()
		if err != nil || started == 0 || ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// WaitDeliveries returns once no delivery attempt is in flight: every attempt started so far
// has ended, and so have any started meanwhile (cancel their context to end them sooner).
func (s *Service) WaitDeliveries() { s.attempts.wait() }

// startDue claims and starts the due deliveries that have a slot and returns how many it started.
func (s *Service) startDue(ctx context.Context) (int, error) {
	now := s.now()
	started := 0
	for range fillRounds {
		busy, full := s.attempts.busy()
		if full {
			break
		}
		due, err := s.store.DueDeliveriesExcept(ctx, now, workBatch, busy)
		if err != nil {
			return started, fmt.Errorf("service: due deliveries: %w", err)
		}
		skipped := false
		for _, d := range due {
			if !s.attempts.take(d.AccountID) {
				skipped = true
				continue
			}
			ok, err := s.store.ClaimDelivery(ctx, d.ID, now, now.Add(s.workLease))
			if err != nil || !ok {
				s.attempts.give(d.AccountID)
				if err != nil {
					return started, fmt.Errorf("service: claim delivery: %w", err)
				}
				continue
			}
			started++
			go func() {
				defer s.attempts.give(d.AccountID)
				if err := s.deliver(ctx, d); err != nil {
					s.log.ErrorContext(ctx, "deliver event", slog.String("delivery_id", d.ID), slog.Any("error", err))
				}
			}()
		}
		if !skipped || len(due) < workBatch {
			break // every due delivery of the accounts not busy was read
		}
	}
	return started, nil
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
	outcome := deliveryOutcome(attempted)
	s.onDelivery(outcome)
	// The operator's trace of each attempt: ids and the outcome, never the URL (it may carry a
	// token), the body or the signature.
	s.log.DebugContext(ctx, "webhook delivery attempt", slog.String("delivery_id", attempted.ID),
		slog.Int64("account_id", attempted.AccountID), slog.Int("attempt", attempted.Attempts), slog.String("outcome", outcome))
	return nil
}

// release drops the lease of a claimed delivery without recording an attempt.
func (s *Service) release(ctx context.Context, d store.Delivery) {
	if err := s.store.UpdateDelivery(context.WithoutCancel(ctx), d); err != nil {
		s.log.ErrorContext(ctx, "release delivery", slog.String("delivery_id", d.ID), slog.Any("error", err))
	}
}
