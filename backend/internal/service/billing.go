package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// DebtGrace is how long an instance may stay locked for debt before the system cancels it
// (README: choices).
const DebtGrace = 72 * time.Hour

// maxBillingRounds bounds one BillDue call; what is left is billed at the next tick.
const maxBillingRounds = 10_000

// BillDue bills every hour that has come due, earliest first across all instances, so a backend
// that was down catches up in the order the hours passed. It is the billing worker's step.
//
// At its renewal_due an active instance either expires (renew off: canceled, reason system), is
// canceled for debt unpaid for DebtGrace, or is charged one hour of plan and features. What the
// balance cannot cover is booked as debt and locks the instance; a top-up pays the debt first
// and unlocks it.
func (s *Service) BillDue(ctx context.Context) error {
	now := s.now()
	for range maxBillingRounds {
		due, err := s.store.DueRenewals(ctx, now, workBatch)
		if err != nil {
			return fmt.Errorf("service: due renewals: %w", err)
		}
		if len(due) == 0 {
			return nil
		}
		for _, in := range due {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.renew(ctx, in.ID, now); err != nil {
				return fmt.Errorf("service: renew instance %d: %w", in.ID, err)
			}
		}
	}
	return nil
}

// renew accounts for one due hour of an instance in one transaction. The hour is claimed by a
// guarded UPDATE of renewal_due, so two workers never bill it twice.
func (s *Service) renew(ctx context.Context, id int64, now time.Time) error {
	err := s.store.WithTx(ctx, func(tx store.Tx) error {
		in, err := tx.InstanceByID(ctx, id)
		if err != nil {
			return err
		}
		if !in.Active || in.RenewalDue.After(now) {
			return nil
		}
		due := in.RenewalDue
		switch {
		case !in.Renew:
			_, err := s.stop(ctx, tx, in, store.StatusExpired, store.CancelSystem, due)
			return err
		case in.Locked && in.LockReason == store.LockDebt && !due.Before(in.LockedAt.Add(DebtGrace)):
			_, err := s.stop(ctx, tx, in, store.StatusCanceled, store.CancelSystem, due)
			return err
		}
		if err := tx.AdvanceRenewal(ctx, in.ID, due, due.Add(catalog.BillingHour)); err != nil {
			return err
		}
		cost := s.recurring(in)
		debt, err := s.charge(ctx, tx, in.AccountID, cost, store.LedgerRenewal, instanceRef(in.ID, "renewal:"+due.Format(time.RFC3339)))
		if err != nil {
			return err
		}
		in.RenewalDue, in.Paid = due.Add(catalog.BillingHour), in.Paid+cost
		lockForDebt(&in, debt, due)
		in.Next.Settle(&in.Status, now)
		return tx.UpdateInstance(ctx, in)
	})
	if errors.Is(err, store.ErrConflict) {
		return nil // another worker billed this hour
	}
	return err
}

// recurring is what an hour of the instance costs: its plan and its features.
func (s *Service) recurring(in store.Instance) money.Micros {
	return s.hourlyPrice(in.PlanID, in.Features)
}

// hourlyPrice is what an hour of a plan with these features costs.
func (s *Service) hourlyPrice(planID int64, features []int64) money.Micros {
	plan, _ := s.catalog.Plan(planID)
	total := plan.Price
	for _, id := range features {
		if f, ok := s.catalog.Feature(id); ok {
			total += f.Price
		}
	}
	return total
}

// hoursUntilZero estimates how many hours the available money lasts at burn per hour, rounded
// down to two decimals; it is 0 when nothing is available.
func hoursUntilZero(available, burn money.Micros) float64 {
	if available <= 0 {
		return 0
	}
	return math.Floor(float64(available)*100/float64(burn)) / 100
}
