// Package datacenter is the boundary between the service and the machines: the Datacenter
// interface the service drives and the values that cross it. The bundled implementation is the
// simulator in internal/sim; a client of a real provider would implement the same interface.
//
// The service keeps every piece of state it needs in its store and hands the datacenter only
// opaque references (a build ticket, a machine ref), so provisioning survives a restart of
// resellerd: a pending order's ticket is polled again by the next process.
package datacenter

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Datacenter builds and operates machines. Every method may fail with an *Error, a failure on
// the datacenter's side that carries a support reference.
type Datacenter interface {
	// Build asks for a new machine and returns the ticket to poll it with.
	Build(ctx context.Context, spec BuildSpec) (ticket string, err error)
	// Poll reports how the build of ticket stands.
	Poll(ctx context.Context, ticket string) (Build, error)
	// Live reports the machine's live status and traffic used since cycleStart.
	Live(ctx context.Context, ref string, cycleStart time.Time) (Live, error)
	// Power runs power_on, power_off or reboot.
	Power(ctx context.Context, ref, action string) (Transition, error)
	// Rebuild erases the disk and installs a template; addresses are kept, the password is new.
	Rebuild(ctx context.Context, ref string, templateID int64, osType string) (Rebuilt, error)
	// ResetPassword sets a new root password and returns it.
	ResetPassword(ctx context.Context, ref string) (string, error)
	// ChangeIP gives the machine a new IPv4 address, from the clean pool when clean is asked for
	// and one is ready.
	ChangeIP(ctx context.Context, ref string, datacenterID int64, clean bool) (IPChange, error)
	// Console opens a short-lived console session.
	Console(ctx context.Context, ref string) (Console, error)
	// Resize moves the machine to another plan.
	Resize(ctx context.Context, ref string, planID int64) (Transition, error)
	// Delete removes the machine; deleting a machine that is gone is not an error.
	Delete(ctx context.Context, ref string) error
	// CheckPassword reports whether password still logs in as root.
	CheckPassword(ctx context.Context, ref, password string) (bool, error)
	// InstallApp runs one app's installer on the machine.
	InstallApp(ctx context.Context, job AppJob) (AppResult, error)

	// CreateSnapshot starts an image of the machine's disk while it keeps running and returns the
	// image's id, which it is polled, restored and deleted by. spec.SnapshotID makes the call
	// idempotent: asked twice for one snapshot, a datacenter answers with the same image.
	CreateSnapshot(ctx context.Context, spec SnapshotSpec) (image string, err error)
	// PollSnapshot reports how an image stands.
	PollSnapshot(ctx context.Context, image string) (SnapshotImage, error)
	// RestoreSnapshot writes an image back onto the machine's disk in place: the machine is
	// powered off and keeps its addresses.
	RestoreSnapshot(ctx context.Context, ref, image string) (Transition, error)
	// DeleteSnapshot removes an image, finished or not; deleting an image that is gone is not an
	// error.
	DeleteSnapshot(ctx context.Context, image string) error
}

// StoredTraffic is a Datacenter whose Live may wait on another host (a machine's counters are
// read where it runs). LiveStored is Live without that wait: a machine of this host is read
// now, another host's answered as that host last counted it. The traffic worker reads every
// live machine with it, so no tick waits on another replica; each host's own worker keeps its
// machines' counts fresh.
type StoredTraffic interface {
	LiveStored(ctx context.Context, ref string, cycleStart time.Time) (Live, error)
}

// GivenUp reports whether the service gave up the build of machine ref (its order timed out):
// no instance will ever hold that machine and no call will ever reach it. The service answers
// it (service.GivenUpBuilds); a datacenter that keeps machines of its own past a build's
// window (package sandbox: a host that was down applies a create late) asks it to remove
// them, and reads no orders itself.
type GivenUp func(ctx context.Context, ref string) (bool, error)

// Machine statuses: the words a datacenter reports a machine's state in, which an active
// instance shows as its status (spec: Instance). A reboot, rebuild, resize or restore shows its
// word until the Transition settles into online or offline. The service's own words for an
// ended instance (canceled, expired) are in the store.
const (
	StatusOnline     = "online"
	StatusOffline    = "offline"
	StatusRebooting  = "rebooting"
	StatusRebuilding = "rebuilding"
	StatusResizing   = "resizing"
	StatusRestoring  = "restoring"
)

// Power actions.
const (
	PowerOn  = "power_on"
	PowerOff = "power_off"
	Reboot   = "reboot"
)

// BuildSpec is what a new machine is built from.
type BuildSpec struct {
	OrderID      int64
	DatacenterID int64
	LocationID   int64
	PlanID       int64
	TemplateID   int64
	OSType       string
	SnapshotID   int64 // 0: from the template
	Hostname     string
	// SnapshotPassword is the root password of snapshot SnapshotID, which a machine built from
	// it keeps (the image holds its server's disk, password included): the service reads the
	// snapshot and hands it over, so the datacenter reads no snapshot rows. "" builds with a
	// new password, as from the template.
	SnapshotPassword string
}

// Build is the state of a build; Machine is set once Done.
type Build struct {
	Done    bool
	Machine Machine
}

// Machine is a built server as the datacenter delivers it.
type Machine struct {
	Ref      string
	IPv4     string
	IPv6     string
	Username string
	Password string
	Port     int
	// CredentialsAt is when the password and addresses are delivered; until then they are
	// pending.
	CredentialsAt time.Time
	Status        string
}

// Live is what the datacenter reports about a running machine.
type Live struct {
	Status        string // "" when the datacenter cannot tell
	TrafficUsedGB int    // since the cycleStart asked; unused when Counted
	// Counted: the datacenter counts the machine's traffic from its interface, and
	// CountedBytes is every byte in and out so far (it only grows); the service reckons it
	// into cycles itself (sandbox machines).
	Counted      bool
	CountedBytes int64
}

// Transition is a status change: Status now, Settled once SettlesAt has passed.
type Transition struct {
	Status    string
	Settled   string
	SettlesAt time.Time
}

// Rebuilt is the result of a rebuild: a transition and new credentials.
type Rebuilt struct {
	Transition
	Password      string
	CredentialsAt time.Time
}

// IPChange is the new address of a change_ip and whether it came from the clean pool.
type IPChange struct {
	IPv4  string
	Clean bool
}

// Console is a console session.
type Console struct {
	URL       string
	Password  string
	ExpiresAt time.Time
}

// SnapshotSpec is what an image is taken of.
type SnapshotSpec struct {
	SnapshotID   int64
	Ref          string // the machine
	DatacenterID int64
	DiskGB       int // the plan's disk; the image holds what of it is used
}

// SnapshotImage is the state of an image; SizeGB and ReadyAt are set once Done, and a done image
// that Failed holds nothing.
type SnapshotImage struct {
	Done    bool
	Failed  bool
	SizeGB  int
	ReadyAt time.Time
}

// AppJob is one app install on a machine.
type AppJob struct {
	Ref      string
	AppID    string
	Host     string            // the address or domain the app answers on
	Ports    []string          // "80/tcp", ...
	Inputs   map[string]string // complete: defaults filled in
	Generate []string          // input keys whose value the installer generates (empty passwords)
}

// AppResult is what an installer reports: URLs and generated credentials, and its log.
type AppResult struct {
	Result map[string]string
	Log    string
}

// ScriptError is an installer that ran on the machine and exited with a non-zero status:
// Log is its output, which the install's log keeps.
type ScriptError struct {
	Exit int
	Log  string
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("datacenter: the installer exited with status %d", e.Exit)
}

// Error is a failure on the datacenter's side. Reference is the short code support asks for.
type Error struct {
	Op        string
	Reference string
}

func (e *Error) Error() string {
	return fmt.Sprintf("datacenter: %s failed (reference %s)", e.Op, e.Reference)
}

// referenceAlphabet is what support references are made of: letters and digits that cannot be
// mistaken for one another when read over the phone (no 0/O, 1/I).
const referenceAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// referenceLength keeps references short enough to quote and long enough to be unique in
// practice (32^10 ≈ 10^15).
const referenceLength = 10

// NewReference returns a fresh support reference of letters and digits, read from random (a
// crypto/rand reader in production).
func NewReference(random io.Reader) (string, error) {
	b := make([]byte, referenceLength)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", fmt.Errorf("datacenter: new reference: %w", err)
	}
	for i := range b {
		b[i] = referenceAlphabet[int(b[i])%len(referenceAlphabet)]
	}
	return string(b), nil
}
