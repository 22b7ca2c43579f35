package store

import (
	"context"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

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
	// The operator's traffic allowance (`resellerd instance set`); nil: the plan's.
	TrafficIncludedGB   *int
	TrafficAllowOverage *bool
	// TrafficCycle is the cycle counted machine traffic is reckoned in (zero: none yet), and
	// TrafficCycleBase the machine's counted bytes when it began; TrafficBilledGB the GB of
	// its overage already billed.
	TrafficCycle     time.Time
	TrafficCycleBase int64
	TrafficBilledGB  int
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

// RenewingGroup is a number of renewing instances of one plan with the same features.
type RenewingGroup struct {
	PlanID   int64
	Features []int64
	Count    int
}

// InstanceQueries are the reads and writes of instances.
type InstanceQueries interface {
	// CreateInstance writes a new instance at the next place of its account's list and returns
	// it with its id; an active one counts against the account's server_limit.
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
	// ActiveInstancesAfter lists up to limit active instances with ids above afterID, lowest
	// first: the live servers only, whatever the rows ever stored (the traffic worker).
	ActiveInstancesAfter(ctx context.Context, afterID int64, limit int) ([]Instance, error)
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
}
