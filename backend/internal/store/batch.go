package store

import (
	"context"
	"time"
)

// BatchQueries write the rows of many orders, instances, charges and events with one statement
// each, so that the provisioning worker records a batch of deploys in a few round trips rather
// than ten for every order (on PostgreSQL each round trip costs about as much as the work it
// carries). In a transaction each first locks the accounts it touches, account first, like the
// single-row writes; accounts the transaction already locked cost no further statement.
type BatchQueries interface {
	// LockAccounts reads the accounts of ids, by id; in a transaction it locks each of them, in
	// id order, with one statement. An id without an account is left out of the map.
	LockAccounts(ctx context.Context, ids []int64) (map[int64]Account, error)
	// ClaimOrders takes the lease of every order of keys that is pending and not held by
	// another worker at now, until the given time, in one statement, and returns the ids it
	// took, in no particular order.
	ClaimOrders(ctx context.Context, keys []OrderKey, now, until time.Time) ([]int64, error)
	// ReleaseOrders drops the lease of every order of releases and records the ticket given
	// with a pending one; ErrNotFound when one of them does not exist.
	ReleaseOrders(ctx context.Context, releases []OrderRelease) error
	// FinishOrders moves every order of finishes from pending to its status at the given time,
	// drops its app inputs and takes it out of its account's pending counts; ErrConflict when one of them is no
	// longer pending (the transaction must then be rolled back: the others were written).
	FinishOrders(ctx context.Context, finishes []OrderFinish, at time.Time) error
	// AddLedgerEntries records the entries and moves each account's balance and debt by their
	// sum, keeping SUM(ledger) equal to the balance (AddLedgerEntry for many).
	AddLedgerEntries(ctx context.Context, entries []LedgerEntry) error
	// CreateInstances writes the instances, each at the next place of its account's list in
	// the order given, and returns them with their ids (CreateInstance for many).
	CreateInstances(ctx context.Context, ins []Instance) ([]Instance, error)
	// AddEvents writes the events to the outbox, in the order given (AddEvent for many).
	AddEvents(ctx context.Context, events []Event) error
	// AddDeliveries writes webhook deliveries (AddDelivery for many); ErrConflict when one
	// exists.
	AddDeliveries(ctx context.Context, ds []Delivery) error
	// AddAppInstalls appends the installs to their instances' queues, each instance's in the
	// order given (AddAppInstall for many).
	AddAppInstalls(ctx context.Context, installs []AppInstall) error
	// Webhooks returns the registrations of those of the accounts that have one, by account.
	Webhooks(ctx context.Context, accountIDs []int64) (map[int64]Webhook, error)
}

// OrderKey names an order and the account that owns it, so a batch locks the account without
// reading the order first; the writes check that the order is the account's.
type OrderKey struct {
	ID        int64
	AccountID int64
}

// OrderRelease is the end of a worker's claim on an order: its build ticket, when one was
// submitted ("" keeps the order's), is recorded with it.
type OrderRelease struct {
	OrderKey
	Ticket string
}

// OrderFinish is how a pending order ends: deployed as an instance, or timed out with a
// support reference.
type OrderFinish struct {
	OrderKey
	Status     string
	InstanceID int64  // 0 for none
	Reference  string // "" for none
}
