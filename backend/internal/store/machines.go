package store

import "context"

// Machine is a server made real on a host (`--machines sandbox`): where it runs and what it is
// built from. The sandbox datacenter writes it at a build and reads it at every call.
type Machine struct {
	Ref       string // the datacenter's machine ref, "vm-<order id>"
	Host      string // the replica it runs on (its host id)
	CIDR      string // that host's machine range, where its addresses come from
	IPv4      string
	Password  string // the build's root password (sealed at rest)
	Hostname  string
	Template  string // the template's name, written to /etc/os-release
	CPUs      int
	MemoryMB  int
	DiskGB    int    // the plan's disk: the machine's disk is a filesystem of this size (0: none of its own)
	FromImage string // the image it is built from; "" for the template's fresh disk
	Power     string // what the database says it should be: "online" or "offline"
	Created   bool   // the host has built it
	// Down: its host found it down (init exited, agent stopped or silent) and has not booted it
	// again yet; its status reads offline meanwhile, on every replica.
	Down bool
	// Traffic is what its host has counted of its network interface (sandbox's traffic.go).
	Traffic TrafficCount
}

// TrafficCount is a machine's traffic as its host counts it from the host's end of its veth:
// Bytes is every byte in and out so far (it only grows); Link and Counter are the interface
// (its ifindex, 0: none read yet) and its rx+tx bytes at the last read.
type TrafficCount struct {
	Bytes   int64
	Link    int
	Counter int64
}

// MachineImage is a copy of a machine's disk, kept on the host of that machine.
type MachineImage struct {
	Image      string
	SnapshotID int64
	Ref        string
	Host       string
	Done       bool
	Failed     bool
	SizeBytes  int64
}

// Statuses of a MachineOp.
const (
	MachineOpPending = "pending"
	MachineOpDone    = "done"
	MachineOpFailed  = "failed"
)

// MachineOp is a change asked of a machine's host by any replica, applied by the host in the
// order asked.
type MachineOp struct {
	ID     string
	Host   string
	Ref    string
	Kind   string
	Args   map[string]string // sealed at rest: passwords and app inputs
	Wait   bool              // a caller waits for Result; the host keeps the row once applied
	Status string
	Result string // sealed at rest
	Exit   int
}

// Machines are the rows of the sandbox datacenter (package sandbox).
type Machines interface {
	// AddMachine stores m unless a machine of its ref is stored, and returns the one stored.
	AddMachine(ctx context.Context, m Machine) (Machine, error)
	// Machine returns machine ref; ErrNotFound when there is none.
	Machine(ctx context.Context, ref string) (Machine, error)
	// UpdateMachine stores what update makes of machine ref, under the row's lock.
	UpdateMachine(ctx context.Context, ref string, update func(*Machine)) error
	// DeleteMachine forgets machine ref; forgetting one that is gone is not an error.
	DeleteMachine(ctx context.Context, ref string) error
	// HostMachines lists the machines of host, by ref.
	HostMachines(ctx context.Context, host string) ([]Machine, error)

	// AddMachineImage stores img unless an image of its name is stored, and returns the one
	// stored.
	AddMachineImage(ctx context.Context, img MachineImage) (MachineImage, error)
	// MachineImage returns image; ErrNotFound when there is none.
	MachineImage(ctx context.Context, image string) (MachineImage, error)
	// SnapshotMachineImage returns the image of a snapshot; ErrNotFound when there is none.
	SnapshotMachineImage(ctx context.Context, snapshotID int64) (MachineImage, error)
	// FinishMachineImage records how the copy of image ended.
	FinishMachineImage(ctx context.Context, image string, failed bool, sizeBytes int64) error
	// DeleteMachineImage forgets image; forgetting one that is gone is not an error.
	DeleteMachineImage(ctx context.Context, image string) error

	// AddMachineOp asks op.Host for op, pending; an op whose ID is stored already is left as it
	// is (added reports whether this call added it).
	AddMachineOp(ctx context.Context, op MachineOp) (added bool, err error)
	// MachineOp returns op id; ErrNotFound when there is none.
	MachineOp(ctx context.Context, id string) (MachineOp, error)
	// PendingMachineOps lists up to limit pending ops of host (of its machine ref only, unless
	// ref is ""), in the order asked.
	PendingMachineOps(ctx context.Context, host, ref string, limit int) ([]MachineOp, error)
	// FinishMachineOp records the outcome of a pending op (MachineOpDone or MachineOpFailed).
	FinishMachineOp(ctx context.Context, id, status, result string, exit int) error
	// DeleteMachineOp forgets op id; forgetting one that is gone is not an error.
	DeleteMachineOp(ctx context.Context, id string) error
}
