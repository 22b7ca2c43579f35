package store

import (
	"context"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// Payment is a top-up credited to a wallet.
type Payment struct {
	ID        int64
	AccountID int64
	Amount    money.Micros
	Type      string
	PaidAt    time.Time
}

// LedgerEntry is one signed movement of a wallet: Amount moves the balance and Debt moves the
// debt. The sums of an account's entries always equal its balance and its debt, because both are
// only changed through AddLedgerEntry.
type LedgerEntry struct {
	ID        int64
	AccountID int64
	Amount    money.Micros
	Debt      money.Micros
	Kind      string
	Reference string
	CreatedAt time.Time
}

// Ledger entry kinds.
const (
	LedgerPayment     = "payment"      // a top-up
	LedgerDebtPayment = "debt_payment" // balance moved to pay debt off
	LedgerOrder       = "order"        // first charge of a deployed order
	LedgerRenewal     = "renewal"      // an hour of an instance
	LedgerResize      = "resize"       // the prorated difference of a resize
	LedgerIPChange    = "ip_change"    // a paid change_ip
	LedgerSnapshot    = "snapshot"     // accrued hours of a snapshot
	LedgerTraffic     = "traffic"      // a GB of traffic over an instance's allowance
)

// WalletChange is an account whose wallet changed: Seq counts its changes so far.
type WalletChange struct {
	AccountID int64
	Seq       int64
}

// WalletQueries are the reads and writes of wallets: payments, the ledger that moves balance and
// debt, and the changes the low-balance worker follows.
type WalletQueries interface {
	// AddPayment records a top-up and returns it with its id; the wallet moves only by the
	// ledger entry the caller writes beside it (AddLedgerEntry).
	AddPayment(ctx context.Context, p Payment) (Payment, error)
	// Payments lists the account's payments, newest first, and how many it has in all.
	Payments(ctx context.Context, accountID int64, page Page) ([]Payment, int, error)

	// AddLedgerEntry records e and moves the account's balance by e.Amount in the same statement
	// batch, keeping SUM(ledger) equal to the balance.
	AddLedgerEntry(ctx context.Context, e LedgerEntry) (LedgerEntry, error)
	// LedgerSum is the sum of the account's entries' amounts, which equals its balance.
	LedgerSum(ctx context.Context, accountID int64) (money.Micros, error)
	// LedgerEntries lists the account's entries, oldest first.
	LedgerEntries(ctx context.Context, accountID int64) ([]LedgerEntry, error)

	// ChangedWallets lists up to limit accounts whose wallet changed since the low-balance
	// worker last looked (MarkWalletChecked): a ledger entry, an order placed or finished, an
	// instance or a snapshot written. Only these can have crossed a balance.low threshold, so
	// the worker's cost follows what changed, not how much exists.
	ChangedWallets(ctx context.Context, limit int) ([]WalletChange, error)
	// MarkWalletChecked records that the account's wallet was evaluated as of seq; a change
	// made since (a higher seq) keeps the account listed.
	MarkWalletChecked(ctx context.Context, id, seq int64) error
	// SetLowBalanceAlert moves the account's alert level from one value to another;
	// ErrConflict when it no longer holds from, so an alert is never sent twice.
	SetLowBalanceAlert(ctx context.Context, id int64, from, to int) error
}
