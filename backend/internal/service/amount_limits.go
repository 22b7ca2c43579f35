package service

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// checkAmount refuses an amount sent in (a top-up, an initial balance, accept_cost) above
// money.Max, naming the field, so no input can overflow the int64 micro-USD of the store.
func checkAmount(field string, amount money.Micros) error {
	if amount > money.Max {
		return Validation(field, "must be at most %s USD", money.Max)
	}
	return nil
}

// checkCredit refuses, in the caller's transaction, a credit that would take the account's
// balance above money.Max: the one bound every balance stays within.
func checkCredit(ctx context.Context, q store.Queries, accountID int64, amount money.Micros) error {
	if err := checkAmount("amount", amount); err != nil {
		return err
	}
	acct, err := q.Account(ctx, accountID)
	if err != nil {
		return fmt.Errorf("service: check credit: %w", err)
	}
	if acct.Balance > money.Max-amount {
		return Validation("amount", "would take the balance above %s USD, the largest balance (it is %s USD)", money.Max, acct.Balance)
	}
	return nil
}
