package store

import (
	"context"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

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

// SnapshotQueries are the reads and writes of snapshots.
type SnapshotQueries interface {
	// CreateSnapshot writes a new snapshot and returns it with its id.
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
	// MarkImageDeleted records that the datacenter deleted the snapshot's image.
	MarkImageDeleted(ctx context.Context, id int64) error
}
