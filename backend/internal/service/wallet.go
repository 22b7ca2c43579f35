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
	// HoursUntilBalanceZero is nil while the account has no renewable servers.
	HoursUntilBalanceZero *float64
	ActiveInstances       int
	PendingOrders         int
}

// Balance reads the wallet of the account.
func (s *Service) Balance(ctx context.Context, acct store.Account) (Balance, error) {
	current, err := s.store.Account(ctx, acct.ID)
	if err != nil {
		return Balance{}, accountError(err, "read balance")
	}
	totals, err := s.store.OrderTotals(ctx, acct.ID)
	if err != nil {
		return Balance{}, Internal(fmt.Errorf("service: read balance: %w", err))
	}
	return Balance{
		Balance:   current.Balance,
		Debt:      current.Debt,
		Reserved:  totals.Reserved,
		Available: current.Balance - totals.Reserved,
		// No instances exist before the servers issue: nothing renews, so nothing to estimate.
		HoursUntilBalanceZero: nil,
		ActiveInstances:       0,
		PendingOrders:         totals.Pending,
	}, nil
}

// Payments lists the account's top-ups, newest first, and how many there are in all.
func (s *Service) Payments(ctx context.Context, acct store.Account, page store.Page) ([]store.Payment, int, error) {
	payments, total, err := s.store.Payments(ctx, acct.ID, page)
	if err != nil {
		return nil, 0, Internal(fmt.Errorf("service: list payments: %w", err))
	}
	return payments, total, nil
}
