package service

import (
	"context"
	"fmt"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// charge books amount against the account in the caller's transaction. The balance pays what it
// can and the rest is booked as debt, so the balance never goes below zero and every charge is
// accounted for in full. It returns the part booked as debt.
func (s *Service) charge(ctx context.Context, tx store.Tx, accountID int64, amount money.Micros, kind, reference string) (money.Micros, error) {
	if amount <= 0 {
		return 0, nil
	}
	acct, err := tx.Account(ctx, accountID)
	if err != nil {
		return 0, fmt.Errorf("service: charge: %w", err)
	}
	e := s.chargeEntry(acct.Balance, accountID, amount, kind, reference)
	if _, err := tx.AddLedgerEntry(ctx, e); err != nil {
		return 0, fmt.Errorf("service: charge: %w", err)
	}
	return e.Debt, nil
}

// chargeEntry is the ledger entry of a charge of amount (above zero) to an account whose
// balance is balance: the balance pays what it can and the rest is debt.
func (s *Service) chargeEntry(balance money.Micros, accountID int64, amount money.Micros, kind, reference string) store.LedgerEntry {
	paid := min(amount, max(balance, 0))
	return store.LedgerEntry{AccountID: accountID, Amount: -paid, Debt: amount - paid, Kind: kind, Reference: reference,
		CreatedAt: s.now()}
}

// settleDebt pays the account's debt from its balance as far as the balance goes. Once nothing
// is owed, the instances locked for debt and the snapshots locked as unpaid are unlocked: a
// top-up pays debt first and then frees the servers and snapshots.
func (s *Service) settleDebt(ctx context.Context, tx store.Tx, accountID int64) error {
	acct, err := tx.Account(ctx, accountID)
	if err != nil {
		return fmt.Errorf("service: settle debt: %w", err)
	}
	if pay := min(acct.Debt, max(acct.Balance, 0)); pay > 0 {
		if _, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: accountID, Amount: -pay, Debt: -pay,
			Kind: store.LedgerDebtPayment, Reference: "debt", CreatedAt: s.now()}); err != nil {
			return fmt.Errorf("service: settle debt: %w", err)
		}
		acct.Debt -= pay
	}
	if acct.Debt > 0 {
		return nil
	}
	if err := tx.UnlockInstances(ctx, accountID, store.LockDebt); err != nil {
		return fmt.Errorf("service: settle debt: %w", err)
	}
	if err := tx.UnlockSnapshots(ctx, accountID, store.LockUnpaid); err != nil {
		return fmt.Errorf("service: settle debt: %w", err)
	}
	return nil
}

// lockForDebt locks, as of at, an instance whose charge was booked as debt. A lock for another
// reason is kept: it is the stronger one to explain.
func lockForDebt(in *store.Instance, debt money.Micros, at time.Time) {
	if debt <= 0 || in.Locked {
		return
	}
	in.Locked, in.LockReason, in.LockedAt = true, store.LockDebt, at
}
