package client

import "github.com/reseller/terraform-provider-reseller/wire"

// Types of the snapshot bodies (spec: Snapshot).

// Snapshot statuses (spec: Snapshot; backend README: snapshot states). creating, available and
// restoring are active; deleted, expired and failed are final.
const (
	SnapshotCreating  = wire.SnapshotCreating
	SnapshotAvailable = wire.SnapshotAvailable
	SnapshotRestoring = wire.SnapshotRestoring
	SnapshotFailed    = wire.SnapshotFailed
	SnapshotExpired   = wire.SnapshotExpired
	SnapshotDeleted   = wire.SnapshotDeleted
)

// The snapshot bodies are the wire package's, with money as float64 dollars; their methods
// (Snapshot.Ended, Busy) live there too.
type (
	Snapshot              = wire.Snapshot[float64]
	CreateSnapshotRequest = wire.CreateSnapshotRequest
	UpdateSnapshotRequest = wire.UpdateSnapshotRequest
	SnapshotSettings      = wire.SnapshotSettings[float64]
)

// InstanceSnapshots is the answer of GET /instances/{id}/snapshots. Settings is nil where the
// datacenter offers no snapshots (or the API did not send them).
type InstanceSnapshots struct {
	Snapshots []Snapshot
	Settings  *SnapshotSettings
}
