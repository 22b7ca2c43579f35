package wire

// The bodies of snapshots (spec: Snapshot). Optional request fields are pointers so "not
// sent" and "empty" stay distinct on the wire: an empty note clears the note, an absent one
// leaves it.

// Snapshot statuses (spec: Snapshot; backend README: snapshot states). creating, available and
// restoring are active; deleted, expired and failed are final.
const (
	SnapshotCreating  = "creating"
	SnapshotAvailable = "available"
	SnapshotRestoring = "restoring"
	SnapshotFailed    = "failed"
	SnapshotExpired   = "expired"
	SnapshotDeleted   = "deleted"
)

// Snapshot is a snapshot as GET /snapshots/{id} returns it (schema Snapshot).
type Snapshot[M Money] struct {
	ID              int64    `json:"id"`
	Name            string   `json:"name"`
	Status          string   `json:"status"`
	Note            *string  `json:"note"`
	Locked          bool     `json:"locked"`
	LockReason      *string  `json:"lock_reason"`
	SizeGB          *float64 `json:"size_gb"` // a number in the schema
	Price           *M       `json:"price"`
	PriceMonthly    *M       `json:"price_monthly"`
	Term            string   `json:"term"`
	Accrued         *M       `json:"accrued"`
	RenewalDue      *string  `json:"renewal_due"`
	CreatedAt       *string  `json:"created_at"`
	AvailableAt     *string  `json:"available_at"`
	ExpiredAt       *string  `json:"expired_at"`
	InstanceID      *int64   `json:"instance_id"`
	DatacenterID    *int64   `json:"datacenter_id"`
	LocationID      *int64   `json:"location_id"`
	TemplateID      *int64   `json:"template_id"`
	ServerProductID *int64   `json:"server_product_id"`
	OSType          *string  `json:"os_type"`
	SourceName      *string  `json:"source_name"`
	// Features are the names (in the request's language) of the features the instance had.
	Features   []string `json:"features"`
	Local      bool     `json:"local"`
	Restore    bool     `json:"restore"`
	PaidAmount *M       `json:"paid_amount"` // nullable in the schema; resellerd always sends it
	// Architecture is an extension (backend OpenAPI document): x86_64 or arm64; the image only
	// builds servers of the same. resellerd always sends it; nil means an API that does not.
	Architecture *string `json:"architecture"`
}

// Ended reports whether the snapshot is final: deleted, expired or failed. An ended snapshot
// is not billed, cannot be used and is listed only with include_inactive.
func (s Snapshot[M]) Ended() bool {
	switch s.Status {
	case SnapshotDeleted, SnapshotExpired, SnapshotFailed:
		return true
	}
	return false
}

// Busy reports whether the snapshot is being created or restored right now. A
// snapshot_unavailable refusal of a busy snapshot passes by itself, so the caller may wait and
// ask again; an ended snapshot is not busy, and its refusal is final.
func (s Snapshot[M]) Busy() bool {
	return s.Status == SnapshotCreating || s.Status == SnapshotRestoring
}

// CreateSnapshotRequest is the body of POST /instances/{id}/snapshots.
type CreateSnapshotRequest struct {
	// Name defaults to the instance name and the time when nil.
	Name *string `json:"name,omitempty"`
}

// UpdateSnapshotRequest is the body of PATCH /snapshots/{id}; nil fields are left unchanged and
// an empty Note clears the note.
type UpdateSnapshotRequest struct {
	Name *string `json:"name,omitempty"`
	Note *string `json:"note,omitempty"`
}

// SnapshotSettings is meta.settings of GET /instances/{id}/snapshots: the snapshot
// configuration of the instance's datacenter (backend README: choices).
type SnapshotSettings[M Money] struct {
	PricePerGBMonth M      `json:"price_per_gb_month"`
	Term            string `json:"term"`
	TermHours       int64  `json:"term_hours"`
	MaxPerInstance  int64  `json:"max_per_instance"`
	CrossLocation   bool   `json:"cross_location"`
	Restore         bool   `json:"restore"`
	Local           bool   `json:"local"`
	HoursPerMonth   int64  `json:"hours_per_month"`
}
