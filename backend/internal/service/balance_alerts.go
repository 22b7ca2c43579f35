package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// lowBalanceThresholds are the hours before renewals exhaust the wallet at which balance.low is
// sent (spec: Event catalogue), highest first.
var lowBalanceThresholds = [...]int{24, 12, 6, 2, 1}

// walletBatch bounds how many changed wallets one low-balance tick evaluates.
const walletBatch = 100

// AlertLowBalanceDue sends balance.low to every account whose hours_until_balance_zero has
// crossed a threshold not yet announced, and forgets the thresholds it has risen above again
// (a top-up, or fewer things renewing), so they are announced once more when crossed anew. It
// is the low-balance worker's step. The hours move only when the wallet does (a charge, a
// top-up, an order, an instance or snapshot that starts or stops renewing), and the store
// counts those changes, so a tick evaluates only the accounts changed since the last one: an
// idle backend reads no instance at all, however many there are.
func (s *Service) AlertLowBalanceDue(ctx context.Context) error {
	changed, err := s.store.ChangedWallets(ctx, walletBatch)
	if err != nil {
		return fmt.Errorf("service: changed wallets: %w", err)
	}
	for _, c := range changed {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.alertLowBalance(ctx, c); err != nil {
			return fmt.Errorf("service: low-balance alert of account %d: %w", c.AccountID, err)
		}
	}
	return nil
}

// alertLowBalance compares the account's level with the one it announced last, then marks the
// wallet checked as of the change it was listed for. Only a new level takes the write
// transaction, in which the level and the event commit together; the guarded level update keeps
// two workers from announcing one crossing twice.
func (s *Service) alertLowBalance(ctx context.Context, c store.WalletChange) error {
	accountID := c.AccountID
	b, err := s.wallet(ctx, s.store, accountID)
	if err != nil {
		return err
	}
	acct, err := s.store.Account(ctx, accountID)
	if err != nil {
		return err
	}
	if crossedThreshold(b.HoursUntilBalanceZero) == acct.LowBalanceAlert {
		return s.store.MarkWalletChecked(ctx, accountID, c.Seq)
	}
	err = s.store.WithTx(ctx, func(tx store.Tx) error {
		acct, err := tx.Account(ctx, accountID)
		if err != nil {
			return err
		}
		b, err := s.wallet(ctx, tx, accountID)
		if err != nil {
			return err
		}
		if err := tx.MarkWalletChecked(ctx, accountID, c.Seq); err != nil {
			return err
		}
		level := crossedThreshold(b.HoursUntilBalanceZero)
		if level == acct.LowBalanceAlert {
			return nil
		}
		if err := tx.SetLowBalanceAlert(ctx, accountID, acct.LowBalanceAlert, level); err != nil {
			return err
		}
		if !lower(level, acct.LowBalanceAlert) {
			return nil // risen above a threshold: it may be announced again
		}
		return s.emit(ctx, tx, accountID, EventBalanceLow, balanceLowData{Balance: b.Balance, HoursUntilBalanceZero: *b.HoursUntilBalanceZero})
	})
	if errors.Is(err, store.ErrConflict) {
		return nil // another worker moved the level first
	}
	return err
}

// crossedThreshold is the lowest threshold the hours are at or under; 0 when they are above
// every threshold or nothing renews. A jump over several thresholds at once (a big order) is
// one crossing, announced once.
func crossedThreshold(hours *float64) int {
	if hours == nil {
		return 0
	}
	level := 0
	for _, t := range lowBalanceThresholds {
		if *hours <= float64(t) {
			level = t
		}
	}
	return level
}

// lower reports whether level is a threshold below announced (0 announced is none).
func lower(level, announced int) bool {
	return level != 0 && (announced == 0 || level < announced)
}
