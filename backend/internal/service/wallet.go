package service

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Balance is the wallet as GET /account/balance shows it.
type Balance struct {
	Balance   money.Micros
	Debt      money.Micros
	Reserved  money.Micros // prices of orders still provisioning
	Available money.Micros // Balance - Reserved: what a new order may draw on
	// HoursUntilBalanceZero is nil while nothing renews: no active instance has renew on.
	HoursUntilBalanceZero *float64
	ActiveInstances       int
	PendingOrders         int
}

// Balance reads the wallet of the account. hours_until_balance_zero divides what is available
// by what the active auto-renewing instances cost per hour.
func (s *Service) Balance(ctx context.Context, acct store.Account) (Balance, error) {
	current, err := s.store.Account(ctx, acct.ID)
	if err != nil {
		return Balance{}, accountError(err, "read balance")
	}
	totals, err := s.store.OrderTotals(ctx, acct.ID)
	if err != nil {
		return Balance{}, Internal(fmt.Errorf("service: read balance: %w", err))
	}
	active, _, err := s.store.Instances(ctx, acct.ID, true, store.All)
	if err != nil {
		return Balance{}, Internal(fmt.Errorf("service: read balance: %w", err))
	}
	b := Balance{
		Balance: current.Balance, Debt: current.Debt, Reserved: totals.Reserved,
		Available:       current.Balance - totals.Reserved,
		ActiveInstances: len(active), PendingOrders: totals.Pending,
	}
	var burn money.Micros
	for _, in := range active {
		if in.Renew {
			burn += s.recurring(in)
		}
	}
	if burn > 0 {
		h := hoursUntilZero(b.Available, burn)
		b.HoursUntilBalanceZero = &h
	}
	return b, nil
}

// Payments lists the account's top-ups, newest first, and how many there are in all.
func (s *Service) Payments(ctx context.Context, acct store.Account, page store.Page) ([]store.Payment, int, error) {
	payments, total, err := s.store.Payments(ctx, acct.ID, page)
	if err != nil {
		return nil, 0, Internal(fmt.Errorf("service: list payments: %w", err))
	}
	return payments, total, nil
}
