// Package store defines what the service needs from persistence, independent of the database.
// Implementations (sqlite/, later postgres/) map their driver errors to ErrNotFound and
// ErrConflict so the service never sees a driver error it would have to interpret.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// ErrNotFound means the row asked for does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict means a write broke a uniqueness rule.
var ErrConflict = errors.New("store: conflict")

// Account is a reseller account with its wallet. Only the SHA-256 hash of the API key is kept.
type Account struct {
	ID           int64
	KeyHash      []byte
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

// Payment is a top-up credited to a wallet.
type Payment struct {
	ID        int64
	AccountID int64
	Amount    money.Micros
	Type      string
	PaidAt    time.Time
}

// LedgerEntry is one signed movement of a wallet's balance. The sum of an account's entries
// always equals its balance, because entries are only written through AddLedgerEntry.
type LedgerEntry struct {
	ID        int64
	AccountID int64
	Amount    money.Micros
	Kind      string
	Reference string
	CreatedAt time.Time
}

// Ledger entry kinds.
const (
	LedgerPayment = "payment"
)

// Order is an API order; this table grows with the orders issue.
type Order struct {
	ID        int64
	AccountID int64
	Status    string
	Price     money.Micros
	CreatedAt time.Time
}

// OrderPending is the status of an order still provisioning; its price is reserved.
const OrderPending = "pending"

// OrderTotals summarises an account's provisioning orders.
type OrderTotals struct {
	Pending  int
	Reserved money.Micros
}

// Page selects a slice of a list; Limit < 0 means no limit.
type Page struct {
	Limit  int
	Offset int
}

// All is the page that returns everything.
var All = Page{Limit: -1}

// Queries are the reads and writes of the store. Both Store (each call on its own) and Tx (calls
// committed together) offer them, so service code reads the same either way.
type Queries interface {
	CreateAccount(ctx context.Context, a NewAccount) (Account, error)
	Account(ctx context.Context, id int64) (Account, error)
	AccountByKeyHash(ctx context.Context, hash []byte) (Account, error)
	SetAccountKey(ctx context.Context, id int64, hash []byte, hint string, createdAt time.Time) error
	SetAccountFlag(ctx context.Context, id int64, flag Flag, value bool) error

	AddPayment(ctx context.Context, p Payment) (Payment, error)
	Payments(ctx context.Context, accountID int64, page Page) ([]Payment, int, error)

	// AddLedgerEntry records e and moves the account's balance by e.Amount in the same statement
	// batch, keeping SUM(ledger) equal to the balance.
	AddLedgerEntry(ctx context.Context, e LedgerEntry) (LedgerEntry, error)
	LedgerSum(ctx context.Context, accountID int64) (money.Micros, error)

	CreateOrder(ctx context.Context, o Order) (Order, error)
	OrderTotals(ctx context.Context, accountID int64) (OrderTotals, error)
}

// Tx is a transaction's view of the store.
type Tx interface {
	Queries
}

// Store is a database. WithTx runs fn in one transaction: it commits when fn returns nil and
// rolls back otherwise, so a state change and the rows that record it land together or not at all.
type Store interface {
	Queries
	WithTx(ctx context.Context, fn func(tx Tx) error) error
	Close() error
}
