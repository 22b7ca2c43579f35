package store

import (
	"context"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// Overview reads the whole database at once, across accounts, for the console of `resellerd
// dev` (GET /_dev/overview): what a developer watching a test wants to see move. Every read is
// bounded by its limit and found through an index, and none is repeated per account or per
// server, so one look costs the same few statements however many rows are stored. The API never
// uses these: it reads one account at a time.
type Overview interface {
	// AccountsWithCounts lists up to limit accounts, lowest id first, with the counts kept on
	// their rows (pending orders, reserved money, active instances).
	AccountsWithCounts(ctx context.Context, limit int) ([]AccountCounts, error)
	// ActiveInstances lists up to limit active instances of every account, newest first.
	ActiveInstances(ctx context.Context, limit int) ([]Instance, error)
	// PendingOrders lists up to limit pending orders of every account, oldest first.
	PendingOrders(ctx context.Context, limit int) ([]Order, error)
	// ActiveSnapshots lists up to limit creating, available or restoring snapshots of every
	// account, newest first.
	ActiveSnapshots(ctx context.Context, limit int) ([]Snapshot, error)
	// RecentDeliveries lists up to limit pending deliveries of every account, earliest due
	// first, then up to limit finished ones, last finished first.
	RecentDeliveries(ctx context.Context, limit int) ([]Delivery, error)
	// BalanceHistory lists, for each account of accountIDs, the balance right after each of its
	// last perAccount ledger entries, by account and then oldest first. The balances are worked
	// back from the account's balance in the same statement, so they agree with it even while
	// entries are being added.
	BalanceHistory(ctx context.Context, accountIDs []int64, perAccount int) ([]BalancePoint, error)
}

// BalancePoint is an account's balance right after a ledger entry.
type BalancePoint struct {
	AccountID int64
	EntryID   int64
	At        time.Time // the entry's time, on the service's clock
	Balance   money.Micros
}
