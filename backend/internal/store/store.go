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

// Instance is a server of an account.
type Instance struct {
	ID            int64
	AccountID     int64
	OrderID       int64
	Name          string
	Note          string
	Hostname      string
	PlanID        int64
	TemplateID    int64
	DatacenterID  int64
	LocationID    int64
	Features      []int64
	Status        string    // as last reported by the datacenter
	NextStatus    string    // what Status becomes at NextStatusAt ("" when settled)
	NextStatusAt  time.Time // zero when settled
	Active        bool
	Renew         bool
	Locked        bool
	LockReason    string
	LockedAt      time.Time
	MachineRef    string // the datacenter's id of the machine
	MachineGone   bool   // the datacenter deleted the machine
	IPv4          string
	IPv6          string
	Username      string
	Password      string
	Port          int
	CredentialsAt time.Time // password and addresses are pending until then
	CreatedAt     time.Time
	RenewalDue    time.Time
	ExpiredAt     time.Time // zero while active
	CancelReason  string    // "api" or "system" once inactive
	Paid          money.Micros
	LastIPChange  time.Time // zero: never changed
	TrafficUsedGB int
}

// Instance statuses the service sets itself; the datacenter reports the others.
const (
	StatusOnline     = "online"
	StatusOffline    = "offline"
	StatusRebooting  = "rebooting"
	StatusRebuilding = "rebuilding"
	StatusResizing   = "resizing"
	StatusCanceled   = "canceled"
	StatusExpired    = "expired"
)

// Lock reasons.
const (
	LockDebt     = "debt"
	LockTraffic  = "traffic"
	LockDeletion = "deletion" // canceled or expired: deletion at the datacenter is in progress
)

// Cancel reasons, as the instance.canceled event carries them.
const (
	CancelAPI    = "api"
	CancelSystem = "system"
)

// AppInstall is the install of one one-click app on an instance.
type AppInstall struct {
	ID         int64
	InstanceID int64
	AppID      string
	Position   int
	Status     string
	Stage      string
	Attempts   int
	Inputs     map[string]string
	Result     map[string]string
	Error      string
	LogTail    string
	QueuedAt   time.Time
	StartedAt  time.Time // zero: not started
	FinishedAt time.Time // zero: not finished
	NextAt     time.Time // when the worker looks at it next
}

// App install statuses and stages.
const (
	InstallQueued     = "queued"
	InstallInstalling = "installing"
	InstallInstalled  = "installed"
	InstallFailed     = "failed"

	StageWaiting    = "waiting"
	StagePreparing  = "preparing"
	StageRunning    = "running"
	StageDone       = "done"
	StageFailed     = "failed"
	StageAuthFailed = "auth_failed"
)

// Event is a row of the outbox: a change the account's webhook is told about.
type Event struct {
	ID        string
	AccountID int64
	Name      string
	Data      []byte // JSON object
	CreatedAt time.Time
}

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

	LedgerEntries(ctx context.Context, accountID int64) ([]LedgerEntry, error)

	CreateOrder(ctx context.Context, o Order) (Order, error)
	OrderTotals(ctx context.Context, accountID int64) (OrderTotals, error)
	// Order returns an order of the account.
	Order(ctx context.Context, accountID, id int64) (Order, error)
	// OrderByID returns an order of any account, for workers.
	OrderByID(ctx context.Context, id int64) (Order, error)
	// RecentOrders lists the account's pending orders and those finished after since,
	// newest first.
	RecentOrders(ctx context.Context, accountID int64, since time.Time) ([]Order, error)
	// DueOrders lists up to limit pending orders no worker holds a lease on at now, oldest first.
	DueOrders(ctx context.Context, now time.Time, limit int) ([]Order, error)
	// ClaimOrder takes the lease of a pending order until the given time; it reports false when
	// the order is no longer pending or another worker holds an unexpired lease.
	ClaimOrder(ctx context.Context, id int64, now, until time.Time) (bool, error)
	// ReleaseOrder drops the lease.
	ReleaseOrder(ctx context.Context, id int64) error
	// SetOrderTicket records the datacenter's build ticket of a pending order.
	SetOrderTicket(ctx context.Context, id int64, ticket string) error
	// FinishOrder moves a pending order to status; ErrConflict when it is no longer pending, so
	// two workers can never both finish it.
	FinishOrder(ctx context.Context, id int64, status string, at time.Time, instanceID int64, reference string) error

	// IdempotencyKey returns the record of key for the account.
	IdempotencyKey(ctx context.Context, accountID int64, key string) (IdempotencyKey, error)
	// AddIdempotencyKey records a key; ErrConflict when the account already has it.
	AddIdempotencyKey(ctx context.Context, k IdempotencyKey) error
	// DeleteIdempotencyKeys removes keys created at or before the given time and reports how many.
	DeleteIdempotencyKeys(ctx context.Context, before time.Time) (int64, error)

	CreateInstance(ctx context.Context, in Instance) (Instance, error)
	// Instance returns an instance of the account; ErrNotFound for another account's.
	Instance(ctx context.Context, accountID, id int64) (Instance, error)
	// InstanceByID returns an instance of any account, for workers and operators.
	InstanceByID(ctx context.Context, id int64) (Instance, error)
	// Instances lists the account's instances, newest first, and how many match in all.
	Instances(ctx context.Context, accountID int64, onlyActive bool, page Page) ([]Instance, int, error)
	// UpdateInstance writes every mutable field of in.
	UpdateInstance(ctx context.Context, in Instance) error
	// DueRenewals lists up to limit active instances whose renewal_due is at or before now,
	// earliest first.
	DueRenewals(ctx context.Context, now time.Time, limit int) ([]Instance, error)
	// AdvanceRenewal moves renewal_due from one value to the next; ErrConflict when it no longer
	// holds from, so an hour is never billed twice.
	AdvanceRenewal(ctx context.Context, id int64, from, to time.Time) error
	// UnlockInstances unlocks the account's active instances locked for reason.
	UnlockInstances(ctx context.Context, accountID int64, reason string) error
	// UndeletedMachines lists up to limit inactive instances whose machine the datacenter has
	// not deleted yet.
	UndeletedMachines(ctx context.Context, limit int) ([]Instance, error)
	// MarkMachineDeleted records that the datacenter deleted the instance's machine.
	MarkMachineDeleted(ctx context.Context, id int64) error

	AddAppInstall(ctx context.Context, a AppInstall) (AppInstall, error)
	// AppInstalls lists the installs of an instance in position order.
	AppInstalls(ctx context.Context, instanceID int64) ([]AppInstall, error)
	// OpenAppInstalls lists up to limit installs still queued or installing, by instance and
	// position.
	OpenAppInstalls(ctx context.Context, limit int) ([]AppInstall, error)
	// ClaimAppInstall takes the lease of an open install; false when another worker holds it or
	// it is no longer open.
	ClaimAppInstall(ctx context.Context, id int64, now, until time.Time) (bool, error)
	// UpdateAppInstall writes the progress of an install and drops its lease.
	UpdateAppInstall(ctx context.Context, a AppInstall) error
	// DeleteAppInstalls removes every install of an instance (its disk was rebuilt).
	DeleteAppInstalls(ctx context.Context, instanceID int64) error

	// AddEvent writes an event to the outbox.
	AddEvent(ctx context.Context, e Event) error
	// Events lists the account's events, oldest first.
	Events(ctx context.Context, accountID int64) ([]Event, error)
}

// Tx is a transaction's view of the store. A read-modify-write of one row inside a Tx is safe:
// SQLite serialises write transactions (BEGIN IMMEDIATE), and a PostgreSQL store reads the rows a
// transaction is about to change with FOR UPDATE.
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
