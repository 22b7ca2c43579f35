// Package store defines what the service needs from persistence, independent of the database.
// Implementations (sqlite/, postgres/) map their driver errors to ErrNotFound and ErrConflict
// so the service never sees a driver error it would have to interpret.
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

// ErrNotAdmitted means the account's limits or wallet refused a new order (AccountCounts.Admits),
// and nothing was written.
var ErrNotAdmitted = errors.New("store: the account does not admit the order")

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
	Status        string  // a datacenter.Status* word while active; StatusCanceled or StatusExpired once ended
	Next          Pending // the change under way (reboot, rebuild...); zero when settled
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

// Instance statuses the service sets itself when an instance ends. While an instance is active
// its status is the datacenter's word for its machine (datacenter.StatusOnline, ...).
const (
	StatusCanceled = "canceled"
	StatusExpired  = "expired"
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

// Snapshot is an image of an instance's disk. It is billed by the hour once available: each hour
// adds Price to Accrued, and Accrued is charged once it reaches the charging threshold.
type Snapshot struct {
	ID         int64
	AccountID  int64
	InstanceID int64 // the source instance
	// SourceActive is read, never written: whether the source instance is still active.
	SourceActive bool
	Name         string
	Note         string
	Status       string
	Next         Pending // a restore in progress: available at Next.At; zero otherwise
	Locked       bool
	LockReason   string
	LockedAt     time.Time
	SizeGB       int          // 0 until available
	Price        money.Micros // per hour, fixed from the size when the snapshot became available
	Accrued      money.Micros // accounted and not yet charged
	Paid         money.Micros // charged so far, the part booked as debt included
	RenewalDue   time.Time    // the next hour to account; zero while not billed
	CreatedAt    time.Time
	AvailableAt  time.Time
	ExpiredAt    time.Time // when it was deleted, expired or failed
	DatacenterID int64
	LocationID   int64
	TemplateID   int64
	PlanID       int64
	OSType       string
	Architecture string
	SourceName   string  // the instance's name when the snapshot was taken
	Features     []int64 // the instance's features when the snapshot was taken
	Local        bool    // a restore point on the instance's disk, gone with the instance
	Username     string  // the credentials the image holds
	Password     string
	Port         int
	ImageRef     string // the datacenter's id of the image; "" until the image was started
	ImageGone    bool   // the datacenter deleted the image
}

// Snapshot statuses (spec: Snapshot), the snapshot's own words: while a snapshot is restoring,
// the instance it is restored onto shows datacenter.StatusRestoring. Creating, available and
// restoring are active: they count against the per-instance cap, and available and restoring
// are billed.
const (
	SnapshotCreating  = "creating"
	SnapshotAvailable = "available"
	SnapshotRestoring = "restoring"
	SnapshotFailed    = "failed"
	SnapshotExpired   = "expired"
	SnapshotDeleted   = "deleted"
)

// LockUnpaid locks a snapshot whose charge the balance could not cover; it lifts when the debt
// is paid.
const LockUnpaid = "unpaid"

// Webhook is an account's webhook registration. Secret signs the deliveries; it is stored as it
// was sent because signing needs it, and it is never shown.
type Webhook struct {
	AccountID int64
	URL       string
	Secret    string
	UpdatedAt time.Time
}

// Delivery is the delivery of one outbox event to the account's webhook. Body is the exact
// request body, fixed when the event was written.
type Delivery struct {
	ID         string
	EventID    string
	AccountID  int64
	Event      string
	Body       []byte
	Status     string
	Attempts   int
	NextAt     time.Time // when the next attempt is due
	LastStatus int       // HTTP status of the last attempt; 0 when there was no answer
	LastError  string
	CreatedAt  time.Time
	FinishedAt time.Time // zero while pending
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"  // every attempt failed
	DeliverySkipped   = "skipped" // the webhook was removed before the delivery was made
)

// RenewingGroup is a number of renewing instances of one plan with the same features.
type RenewingGroup struct {
	PlanID   int64
	Features []int64
	Count    int
}

// WalletChange is an account whose wallet changed: Seq counts its changes so far.
type WalletChange struct {
	AccountID int64
	Seq       int64
}

// WorkDue is what the worker loops read to know how long they may sleep. Work that waits on the
// datacenter (a build, an image, an install stage) has no due time in the store and is polled
// while it lasts; scheduled work has one.
type WorkDue struct {
	Provisioning bool      // pending orders or queued or installing app installs: poll
	Accounts     bool      // open snapshots, changed wallets, machines or images to delete: poll
	Renewal      time.Time // the earliest renewal of an active instance or a billed snapshot; zero: none
	Delivery     time.Time // the earliest pending webhook delivery; zero: none
}

// OrderTotals summarises an account's provisioning orders.
type OrderTotals struct {
	Pending  int
	Reserved money.Micros
}

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
	// AccountCounts is Account, OrderTotals and the count of active instances in one read (and,
	// in a transaction, the one lock Account takes).
	AccountCounts(ctx context.Context, id int64) (AccountCounts, error)
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
	OrderTotals(ctx context.Context, accountID int64) (OrderTotals, error)
	// Order returns an order of the account.
	Order(ctx context.Context, accountID, id int64) (Order, error)
	// OrderByID returns an order of any account, for workers.
	OrderByID(ctx context.Context, id int64) (Order, error)
	// RecentOrders lists up to limit of the account's orders with an id below beforeID that are
	// pending or finished after since, newest first: a caller reads a long list in chunks,
	// passing the last id it got.
	RecentOrders(ctx context.Context, accountID int64, since time.Time, beforeID int64, limit int) ([]Order, error)
	// OrderServers returns the account's instances of ids (by id) and their app installs (by
	// instance, in position order), in two queries, none for no ids: GET /orders reads a chunk
	// of orders with their servers in three queries, not two more per deployed order.
	OrderServers(ctx context.Context, accountID int64, ids []int64) (map[int64]Instance, map[int64][]AppInstall, error)
	// DueOrders lists up to limit pending orders no worker holds a lease on at now, oldest first.
	DueOrders(ctx context.Context, now time.Time, limit int) ([]Order, error)
	// FinishOrder moves a pending order to status; ErrConflict when it is no longer pending, so
	// two workers can never both finish it.
	FinishOrder(ctx context.Context, id int64, status string, at time.Time, instanceID int64, reference string) error

	// IdempotencyKey returns the record of key for the account.
	IdempotencyKey(ctx context.Context, accountID int64, key string) (IdempotencyKey, error)
	// AddIdempotencyKey records a key, in place of the account's record of the same key if that
	// one was created at or before expiredBefore (it has expired, and housekeeping has not yet
	// purged it); ErrConflict when the account has the key unexpired.
	AddIdempotencyKey(ctx context.Context, k IdempotencyKey, expiredBefore time.Time) error
	// DeleteIdempotencyKeys removes keys created at or before the given time and reports how many.
	DeleteIdempotencyKeys(ctx context.Context, before time.Time) (int64, error)

	CreateInstance(ctx context.Context, in Instance) (Instance, error)
	// Instance returns an instance of the account; ErrNotFound for another account's.
	Instance(ctx context.Context, accountID, id int64) (Instance, error)
	// InstanceByID returns an instance of any account, for workers and operators.
	InstanceByID(ctx context.Context, id int64) (Instance, error)
	// Instances lists the account's instances, newest first, and how many match in all.
	Instances(ctx context.Context, accountID int64, onlyActive bool, page Page) ([]Instance, int, error)
	// RenewingInstances counts the account's active instances with renew on, grouped by what
	// they renew for (plan and features), so the hourly burn is summed without reading each row.
	RenewingInstances(ctx context.Context, accountID int64) ([]RenewingGroup, error)
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

	SnapshotQueries
	WebhookQueries
	BatchQueries
}

// SnapshotQueries are the reads and writes of snapshots.
type SnapshotQueries interface {
	CreateSnapshot(ctx context.Context, s Snapshot) (Snapshot, error)
	// Snapshot returns a snapshot of the account; ErrNotFound for another account's.
	Snapshot(ctx context.Context, accountID, id int64) (Snapshot, error)
	// SnapshotByID returns a snapshot of any account, for workers.
	SnapshotByID(ctx context.Context, id int64) (Snapshot, error)
	// Snapshots lists the account's snapshots, newest first; without includeInactive only the
	// creating, available and restoring ones.
	Snapshots(ctx context.Context, accountID int64, includeInactive bool) ([]Snapshot, error)
	// InstanceSnapshots lists every snapshot taken from an instance, newest first.
	InstanceSnapshots(ctx context.Context, instanceID int64) ([]Snapshot, error)
	// UpdateSnapshot writes every mutable field of s.
	UpdateSnapshot(ctx context.Context, s Snapshot) error
	// OpenSnapshots lists up to limit snapshots creating or restoring, oldest first.
	OpenSnapshots(ctx context.Context, limit int) ([]Snapshot, error)
	// DueSnapshotRenewals lists up to limit billed snapshots whose renewal_due is at or before
	// now, earliest first.
	DueSnapshotRenewals(ctx context.Context, now time.Time, limit int) ([]Snapshot, error)
	// AdvanceSnapshotRenewal moves renewal_due from one value to the next; ErrConflict when it no
	// longer holds from, so an hour is never accounted twice.
	AdvanceSnapshotRenewal(ctx context.Context, id int64, from, to time.Time) error
	// UnlockSnapshots unlocks the account's snapshots locked for reason.
	UnlockSnapshots(ctx context.Context, accountID int64, reason string) error
	// UndeletedImages lists up to limit deleted, expired or failed snapshots whose image the
	// datacenter has not deleted yet.
	UndeletedImages(ctx context.Context, limit int) ([]Snapshot, error)

	// WorkDue tells the worker loops, in one read, what they will next have to do.
	WorkDue(ctx context.Context) (WorkDue, error)
	// MarkImageDeleted records that the datacenter deleted the snapshot's image.
	MarkImageDeleted(ctx context.Context, id int64) error
}

// WebhookQueries are the reads and writes of webhook registrations, deliveries and low-balance
// alerts.
type WebhookQueries interface {
	// Webhook returns the account's registration; ErrNotFound when there is none.
	Webhook(ctx context.Context, accountID int64) (Webhook, error)
	// SetWebhook registers w, replacing the account's previous registration.
	SetWebhook(ctx context.Context, w Webhook) error
	// DeleteWebhook removes the account's registration; removing none is not an error.
	DeleteWebhook(ctx context.Context, accountID int64) error

	AddDelivery(ctx context.Context, d Delivery) error
	// DueDeliveries lists up to limit pending deliveries due at now that no worker holds,
	// earliest first.
	DueDeliveries(ctx context.Context, now time.Time, limit int) ([]Delivery, error)
	// DueDeliveriesExcept is DueDeliveries without the deliveries of the accounts in skip (those
	// with as many attempts in flight as they may have), so one account's backlog cannot fill
	// the batch and hide the others' deliveries.
	DueDeliveriesExcept(ctx context.Context, now time.Time, limit int, skip []int64) ([]Delivery, error)
	// ClaimDelivery takes the lease of a pending delivery due at now until the given time; it
	// reports false when it is no longer pending or due, or another worker holds it.
	ClaimDelivery(ctx context.Context, id string, now, until time.Time) (bool, error)
	// UpdateDelivery records the outcome of an attempt and drops the lease.
	UpdateDelivery(ctx context.Context, d Delivery) error
	// Deliveries lists the account's deliveries, oldest first.
	Deliveries(ctx context.Context, accountID int64) ([]Delivery, error)

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
	// InstanceWithInstalls is Instance and the AppInstalls of that instance, for
	// GET /instances/{id}: one statement when the instance has no installs, two when it has.
	InstanceWithInstalls(ctx context.Context, accountID, id int64) (Instance, []AppInstall, error)
	WithTx(ctx context.Context, fn func(tx Tx) error) error
	Close() error
}
