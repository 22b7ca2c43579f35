// Package store defines what the service needs from persistence, independent of the database.
// Its one implementation, sqlstore/, serves both SQLite and PostgreSQL and maps their driver
// errors to ErrNotFound and ErrConflict, so the service never sees a driver error it would have
// to interpret.
package store

import (
	"context"
	"errors"
)

// ErrNotFound means the row asked for does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict means a write broke a uniqueness rule.
var ErrConflict = errors.New("store: conflict")

// ErrNotAdmitted means the account's limits or wallet refused a new order (AccountCounts.Admits),
// and nothing was written.
var ErrNotAdmitted = errors.New("store: the account does not admit the order")

// Page selects a slice of a list; Limit < 0 means no limit.
type Page struct {
	Limit  int
	Offset int
}

// All is the page that returns everything.
var All = Page{Limit: -1}

// Queries are the reads and writes of the store, one interface per entity beside its row types
// (accounts.go, orders.go, ...). Both Store (each call on its own) and Tx (calls committed
// together) offer them, so service code reads the same either way.
type Queries interface {
	AccountQueries
	WalletQueries
	OrderQueries
	InstanceQueries
	AppInstallQueries
	EventQueries
	SnapshotQueries
	WebhookQueries
	WorkDueQueries
	BatchQueries
	AuditQueries
}

// Tx is a transaction's view of the store. A read-modify-write of one row inside a Tx is safe,
// and so is a decision taken on an account's rows (its balance, its pending orders, its
// idempotency keys): SQLite serialises write transactions (BEGIN IMMEDIATE), and the PostgreSQL
// store locks the account's row first and then each row the transaction reads, until the commit.
type Tx interface {
	Queries
}

// Store is a database. WithTx runs fn in one transaction: it commits when fn returns nil and
// rolls back otherwise, so a state change and the rows that record it land together or not at all.
// fn may run more than once (the PostgreSQL store runs a transaction the database aborted as a
// deadlock again), so it must touch nothing but tx and its own results.
type Store interface {
	Queries
	Retention // retention.go
	Overview  // overview.go
	Machines  // machines.go
	// InstanceWithInstalls is Instance and the AppInstalls of that instance, for
	// GET /instances/{id}: one statement when the instance has no installs, two when it has.
	InstanceWithInstalls(ctx context.Context, accountID, id int64) (Instance, []AppInstall, error)
	// WithTx runs fn in one transaction (see Store).
	WithTx(ctx context.Context, fn func(tx Tx) error) error
	// Close closes the database; the store is not used after.
	Close() error
}
