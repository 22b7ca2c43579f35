package store

import (
	"context"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// Account is a reseller account with its wallet. Only a hash of the API key is kept: its
// SHA-256, or with a secrets key an HMAC of it, with a tag binding it to the account (KeyTag).
type Account struct {
	ID           int64
	KeyHash      []byte
	KeyTag       []byte // nil without a secrets key
	KeyHint      string
	KeyCreatedAt time.Time
	ServerLimit  int
	OrderLimit   int
	Language     string
	Blocked      bool
	KYCVerified  bool
	AppsEnabled  bool
	Balance      money.Micros
	Debt         money.Micros
	CreatedAt    time.Time
	// LowBalanceAlert is the lowest balance.low threshold, in hours, already announced; 0 when
	// none is.
	LowBalanceAlert int
}

// NewAccount is what creating an account needs; the wallet starts empty.
type NewAccount struct {
	KeyHash      []byte
	KeyHint      string
	KeyCreatedAt time.Time
	ServerLimit  int
	OrderLimit   int
	Language     string
	CreatedAt    time.Time
}

// Flag names one of an account's boolean switches.
type Flag int

// The switches support can turn on an account.
const (
	FlagBlocked Flag = iota + 1
	FlagKYCVerified
	FlagAppsEnabled
)

// AccountCounts is an account with the counts kept on its row: what an order, a charge or the
// wallet is checked against, read in one statement.
type AccountCounts struct {
	Account         Account
	Orders          OrderTotals
	ActiveInstances int
}

// The rules a new order meets (spec: server_limit, api_order_limit, the available balance) are
// written once here; PlaceOrder applies them in the database, and the service words its refusal
// from them. The PostgreSQL store repeats them in SQL (sqlstore's admitsOrder), and storetest
// checks both databases at each rule's boundary.

// AtServerLimit reports whether the active servers and the orders that will become servers
// have reached server_limit.
func (c AccountCounts) AtServerLimit() bool {
	return c.ActiveInstances+c.Orders.Pending >= c.Account.ServerLimit
}

// AtOrderLimit reports whether the orders provisioning at once have reached api_order_limit.
func (c AccountCounts) AtOrderLimit() bool {
	return c.Orders.Pending >= c.Account.OrderLimit
}

// Available is the balance less what pending orders reserve.
func (c AccountCounts) Available() money.Micros {
	return c.Account.Balance - c.Orders.Reserved
}

// Admits reports whether the account may take a new pending order of price.
func (c AccountCounts) Admits(price money.Micros) bool {
	return !c.AtServerLimit() && !c.AtOrderLimit() && c.Available() >= price
}

// AccountQueries are the reads and writes of accounts: their keys, switches and the counts kept
// on their rows.
type AccountQueries interface {
	// CreateAccount writes a new account with an empty wallet and returns it with its id;
	// ErrConflict when another account has the key hash.
	CreateAccount(ctx context.Context, a NewAccount) (Account, error)
	// Account returns the account of id; ErrNotFound when there is none.
	Account(ctx context.Context, id int64) (Account, error)
	// AccountCounts is Account, OrderTotals and the count of active instances in one read (and,
	// in a transaction, the one lock Account takes).
	AccountCounts(ctx context.Context, id int64) (AccountCounts, error)
	// AccountByKeyHash returns the account whose API key hashes to hash: how every request is
	// authenticated. ErrNotFound when no account has it.
	AccountByKeyHash(ctx context.Context, hash []byte) (Account, error)
	// SetAccountKey replaces the account's key (its hash, the hash's tag, nil without a secrets
	// key, and its hint); the old key stops working.
	SetAccountKey(ctx context.Context, id int64, hash, tag []byte, hint string, createdAt time.Time) error
	// SetAccountFlag turns one of the account's switches on or off.
	SetAccountFlag(ctx context.Context, id int64, flag Flag, value bool) error
}
