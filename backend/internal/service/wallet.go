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
	// HoursUntilBalanceZero is nil while nothing renews: no active instance has renew on and
	// no snapshot is billed.
	HoursUntilBalanceZero *float64
	ActiveInstances       int
	PendingOrders         int
}

// Balance reads the wallet of the account. hours_until_balance_zero divides what is available
// by what renews every hour: the active auto-renewing instances and the billed snapshots.
func (s *Service) Balance(ctx context.Context, acct store.Account) (Balance, error) {
	b, err := s.wallet(ctx, s.store, acct.ID)
	if err != nil {
		return Balance{}, accountError(err, "read balance")
	}
	return b, nil
}

// wallet computes the Balance of an account from q, inside a transaction or not.
func (s *Service) wallet(ctx context.Context, q store.Queries, accountID int64) (Balance, error) {
	c, err := q.AccountCounts(ctx, accountID)
	if err != nil {
		return Balance{}, err
	}
	current, totals, active := c.Account, c.Orders, c.ActiveInstances
	renewing, err := q.RenewingInstances(ctx, accountID)
	if err != nil {
		return Balance{}, fmt.Errorf("service: renewing instances: %w", err)
	}
	snapshots, err := q.Snapshots(ctx, accountID, false)
	if err != nil {
		return Balance{}, fmt.Errorf("service: snapshots: %w", err)
	}
	b := Balance{
		Balance: current.Balance, Debt: current.Debt, Reserved: totals.Reserved,
		Available:       current.Balance - totals.Reserved,
		ActiveInstances: active, PendingOrders: totals.Pending,
	}
	var burn money.Micros
	for _, g := range renewing {
		burn += s.hourlyPrice(g.PlanID, g.Features) * money.Micros(g.Count)
	}
	for _, snap := range snapshots {
		if billed(snap) {
			burn += snap.Price
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
