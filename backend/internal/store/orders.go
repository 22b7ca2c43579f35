package store

import (
	"context"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// Order is an API order: what was asked for, and where provisioning stands.
type Order struct {
	ID         int64
	AccountID  int64
	Status     string
	Price      money.Micros // first charge; reserved while pending
	CreatedAt  time.Time
	PlanID     int64
	TemplateID int64
	SnapshotID int64 // 0: built from the template
	Hostname   string
	Features   []int64
	Apps       []string                     // in install order
	AppInputs  map[string]map[string]string // app id → input key → value, defaults filled in
	Ticket     string                       // the datacenter's build ticket; "" until submitted
	LeaseUntil time.Time                    // zero: not claimed by a worker
	FinishedAt time.Time                    // zero while pending
	InstanceID int64                        // 0 until deployed
	Reference  string                       // support reference of a timed-out order
}

// Order statuses.
const (
	OrderPending  = "pending" // provisioning; its price is reserved
	OrderDeployed = "deployed"
	OrderTimedOut = "timed_out"
)

// IdempotencyKey remembers which order a POST /instances with an Idempotency-Key created, and
// the hash of the canonical body that created it.
type IdempotencyKey struct {
	AccountID   int64
	Key         string
	RequestHash string
	OrderID     int64
	CreatedAt   time.Time
}

// OrderTotals summarises an account's provisioning orders.
type OrderTotals struct {
	Pending  int
	Reserved money.Micros
}

// OrderQueries are the reads and writes of orders and of the idempotency keys that name them.
type OrderQueries interface {
	// PlaceOrder writes o as a new pending order of its account, counted on the account, and
	// key (when not nil) as the record of the Idempotency-Key that names it, created with o, if
	// the account admits the order (AccountCounts.Admits), as one atomic step that locks the
	// account: two orders placed at once, from any replica, cannot together pass a limit or
	// overdraw the wallet. It returns the order with its id and the counts it was checked
	// against, from before it. When they refuse it, it writes nothing and the error is
	// ErrNotAdmitted; when the account has a record of key, expired or not, it writes nothing and
	// the error is ErrConflict (AddIdempotencyKey takes over an expired one). On PostgreSQL it
	// is one statement, so outside a transaction one round trip.
	PlaceOrder(ctx context.Context, o Order, key *IdempotencyKey) (Order, AccountCounts, error)
	// OrderTotals reads the account's pending orders and the price they reserve.
	OrderTotals(ctx context.Context, accountID int64) (OrderTotals, error)
	// Order returns an order of the account.
	Order(ctx context.Context, accountID, id int64) (Order, error)
	// OrderByID returns an order of any account, for workers.
	OrderByID(ctx context.Context, id int64) (Order, error)
	// RecentOrders lists up to limit of the account's orders with an id below beforeID that are
	// pending or finished after since, newest first: a caller reads a long list in chunks,
	// passing the last id it got.
	RecentOrders(ctx context.Context, accountID int64, since time.Time, beforeID int64, limit int) ([]Order, error)
	// OrderInstances returns the account's instances of ids (by id) and their app installs (by
	// instance, in position order), in two queries, none for no ids: GET /orders reads a chunk
	// of orders with their servers in three queries, not two more per deployed order.
	OrderInstances(ctx context.Context, accountID int64, ids []int64) (map[int64]Instance, map[int64][]AppInstall, error)
	// DueOrders lists up to limit pending orders no worker holds a lease on at now, oldest first.
	DueOrders(ctx context.Context, now time.Time, limit int) ([]Order, error)
	// FinishOrder moves a pending order to status and drops its app inputs (a deployed order's
	// installs have their own copy); ErrConflict when it is no longer pending, so two workers
	// can never both finish it.
	FinishOrder(ctx context.Context, id int64, status string, at time.Time, instanceID int64, reference string) error

	// IdempotencyKey returns the record of key for the account.
	IdempotencyKey(ctx context.Context, accountID int64, key string) (IdempotencyKey, error)
	// AddIdempotencyKey records a key, in place of the account's record of the same key if that
	// one was created at or before expiredBefore (it has expired, and housekeeping has not yet
	// purged it); ErrConflict when the account has the key unexpired.
	AddIdempotencyKey(ctx context.Context, k IdempotencyKey, expiredBefore time.Time) error
	// DeleteIdempotencyKeys removes keys created at or before the given time and reports how many.
	DeleteIdempotencyKeys(ctx context.Context, before time.Time) (int64, error)
}
