// Package sandbox is the datacenter of `resellerd --machines sandbox`: the simulator (package
// sim) keeps its timing, its fault injection, its tickets and its shared State, and every Linux
// server it reports is also a real machine on a host (package machines), reachable over SSH at
// its own address with the password the API hands out. Windows servers stay simulated.
//
// # Hosts
//
// Each machine runs on the replica that built it (its host id, HostID), recorded in the
// database (store.Machine). Any replica takes API calls for any machine: a call asks the
// machine's host for the change by writing a store.MachineOp. When the host is this replica
// the op is applied at once, in the call, after the machine's earlier pending ops; otherwise
// the host's reconciler (Run) applies it: it reads only its own pending ops (an indexed list
// that does not grow with the rows ever stored), when PostgreSQL's change notifications say
// something changed (the trigger of migration 0014 on machine_ops) and at the latest every
// fullPassEvery, and hands each machine's ops to a worker of that machine's (workers.go), never
// waiting for one. A caller that needs the op's result (a password check, an app install) waits
// for it; the others return at once, as the simulator's transition already answers the API.
// Every op has a deadline (deadlines.go): a machine that hangs fails its own ops and delays no
// other machine's. A machine found down by its host's runtime is booted again there (Revived).
//
// # Builds
//
// A build asks the machine's host to create and boot the machine at once (startCreate), not
// waiting for anything, so the machine boots while the simulator's build delay runs. The
// build's poll is done when the simulator says so and the machine is up: a poll while it still
// boots says not done, and a poll that finds its create failed asks the host again and waits.
// A build given up because its order timed out leaves nothing (sweep.go).
//
// # Addresses
//
// A build's address is derived from its order id in the lower half of the host's range
// (--machines-cidr), and a change_ip's from one counter shared by every replica (the
// simulator's pool table, under its own key) in the upper half: stable per order, and unique
// until a half wraps around (see buildAddress and changeAddress).
//
// # Traffic
//
// A machine's traffic is counted by its host from its interface's counters and kept in its
// row, so it outlives the interface every boot replaces (traffic.go); Live reads it now, through
// the machine's host, and LiveStored (the traffic worker's) waits on no other host.
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Machines is what the sandbox asks of this host's machine runtime: *machines.Manager.
type Machines interface {
	Create(ctx context.Context, s machines.Spec, fromSnapshot string) error
	Start(ctx context.Context, ref string) error
	Stop(ctx context.Context, ref string) error
	Reboot(ctx context.Context, ref string) error
	Rebuild(ctx context.Context, ref, template, password string) error
	SetPassword(ctx context.Context, ref, password string) error
	CheckPassword(ctx context.Context, ref, password string) (bool, error)
	SetAddress(ctx context.Context, ref string, ip netip.Addr) error
	SetLimits(ctx context.Context, ref string, l machines.Limits) error
	Snapshot(ctx context.Context, ref, image string) (sizeBytes int64, err error)
	Restore(ctx context.Context, ref, image string) error
	DeleteSnapshot(ctx context.Context, image string) error
	Delete(ctx context.Context, ref string) error
	Run(ctx context.Context, ref string, script string, env map[string]string) (output string, exit int, err error)
	Console(ctx context.Context, ref string, cols, rows int) (*machines.Terminal, error)
	Traffic(ref string) (t machines.Traffic, ok bool, err error)
	Close(ctx context.Context) error
}

// State is where the sandbox keeps its rows: the store.
type State interface {
	store.Machines
	// UpdateIPPool is the simulator's pool table; the sandbox keeps its change_ip counter there
	// under addressCounter.
	UpdateIPPool(ctx context.Context, datacenterID int64, update func(*store.IPPool)) error
	// ChangeVersion moves when another process may have added an op (PostgreSQL's
	// notifications); ok is false when it cannot tell.
	ChangeVersion(ctx context.Context) (version uint64, ok bool)
}

// Options shape a sandbox datacenter.
type Options struct {
	Sim   *sim.Sim // timing, faults, tickets and the simulator's State
	State State
	// GivenUp tells the machines of builds the service gave up (service.GivenUpBuilds): the
	// sweep removes them (sweep.go). Required.
	GivenUp  datacenter.GivenUp
	Machines Machines
	Catalog  *catalog.Catalog // templates' names and plans' limits
	Host     string           // this replica's host id (HostID)
	CIDR     netip.Prefix     // this host's machine range (--machines-cidr)
	Logger   *slog.Logger
	// LookEvery is how often the reconciler looks whether something changed (0: 200 ms).
	LookEvery time.Duration
	// SweepEvery is how often the reconciler removes the machines of timed-out orders
	// (0: sweepEvery).
	SweepEvery time.Duration
	// Revived, when set, is told of each machine of this host found down and booted again
	// (Datacenter.Revived): why, and the boot's error. The server counts them.
	Revived func(reason string, err error)
	// Consoles issues the console sessions of this host's machines (package console); nil
	// leaves the console action the simulator's.
	Consoles ConsoleIssuer
}

// Datacenter is the sandbox datacenter. It is safe for concurrent use.
type Datacenter struct {
	sim      *sim.Sim
	state    State
	givenUp  datacenter.GivenUp
	machines Machines
	catalog  *catalog.Catalog
	host     string
	cidr     netip.Prefix
	log      *slog.Logger
	look     time.Duration
	sweep    time.Duration

	revived  func(reason string, err error) // Options.Revived
	consoles ConsoleIssuer                  // Options.Consoles

	wake  chan struct{}            // wakeReconciler's: Run passes at once
	slots chan struct{}            // a slot per machine worker running (machineWorkers)
	mu    sync.Mutex               // guards locks, busy, again, runs; idle's lock
	locks map[string]chan struct{} // one per machine: its ops apply one at a time, in order
	busy  map[string]bool          // machines with a worker (work)
	again map[string]bool          // busy machines asked for again while their worker ran
	idle  sync.Cond                // broadcast when busy empties
	runs  map[string]bool          // the run ops whose script runs now (startRun), by op id
}

var (
	_ datacenter.Datacenter    = (*Datacenter)(nil)
	_ datacenter.StoredTraffic = (*Datacenter)(nil)
)

// minPrefixBits and maxPrefixBits bound --machines-cidr: an IPv4 range of at least 16
// addresses (each half holds a few machines), at most the whole space's /8.
const (
	minPrefixBits = 8
	maxPrefixBits = 28
)

// CheckCIDR refuses a range the addresses cannot come from.
func CheckCIDR(p netip.Prefix) error {
	switch {
	case !p.IsValid() || !p.Addr().Is4():
		return errors.New("must be an IPv4 range such as 198.18.0.0/16")
	case p.Bits() < minPrefixBits || p.Bits() > maxPrefixBits:
		return fmt.Errorf("must be from /%d to /%d", minPrefixBits, maxPrefixBits)
	case p.Masked() != p:
		return fmt.Errorf("%s is not the start of its range (%s)", p, p.Masked())
	}
	return nil
}

// New returns a sandbox datacenter; Run starts its reconciler and Boot its machines.
func New(o Options) (*Datacenter, error) {
	if err := CheckCIDR(o.CIDR); err != nil {
		return nil, fmt.Errorf("sandbox: --machines-cidr: %w", err)
	}
	if o.Host == "" {
		return nil, errors.New("sandbox: no host id")
	}
	if o.GivenUp == nil {
		return nil, errors.New("sandbox: no GivenUp: the machines of given-up builds would stay for ever")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.LookEvery <= 0 {
		o.LookEvery = 200 * time.Millisecond
	}
	if o.SweepEvery == 0 {
		o.SweepEvery = sweepEvery
	}
	d := &Datacenter{sim: o.Sim, state: o.State, givenUp: o.GivenUp, machines: o.Machines, catalog: o.Catalog, host: o.Host,
		cidr: o.CIDR, log: o.Logger, look: o.LookEvery, sweep: o.SweepEvery, revived: o.Revived, consoles: o.Consoles, wake: make(chan struct{}, 1),
		slots: make(chan struct{}, machineWorkers), locks: map[string]chan struct{}{}, busy: map[string]bool{}, again: map[string]bool{},
		runs: map[string]bool{}}
	d.idle.L = &d.mu
	return d, nil
}

// Host is this replica's host id.
func (d *Datacenter) Host() string { return d.host }

// Boot removes the machines of orders that timed out while this host was down (see sweep),
// starts every other machine of this host the database says is online, from its disk, then
// applies the ops asked of this host while it was down.
func (d *Datacenter) Boot(ctx context.Context) error {
	d.sweepAbandoned(ctx)
	d.waitIdle() // the sweep's removals, so no abandoned machine is booted
	list, err := d.state.HostMachines(ctx, d.host)
	if err != nil {
		return fmt.Errorf("sandbox: boot: %w", err)
	}
	var (
		errs  []error
		errMu sync.Mutex
		wg    sync.WaitGroup
	)
	for _, m := range list {
		if !m.Created || m.Power != datacenter.StatusOnline {
			continue
		}
		// Side by side, machineWorkers at a time: a machine whose boot or boot scripts hang
		// until their deadline holds up no other machine's boot.
		d.slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-d.slots; wg.Done() }()
			if err := d.bootOne(ctx, m.Ref); err != nil {
				errMu.Lock()
				errs = append(errs, fmt.Errorf("sandbox: boot %s: %w", m.Ref, err))
				errMu.Unlock()
			}
		}()
	}
	wg.Wait()
	d.pass(ctx)
	return errors.Join(errs...)
}

// bootOne starts machine ref from its disk, with its boot scripts, within a power op's bound.
func (d *Datacenter) bootOne(ctx context.Context, ref string) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout(datacenter.PowerOn))
	defer cancel()
	return d.booted(ctx, ref, d.machines.Start(ctx, ref))
}

// Close stops every machine of this host cleanly (their disks kept: the next Boot starts
// them again). The reconciler stops with Run's context.
func (d *Datacenter) Close(ctx context.Context) error {
	d.countHostTraffic(ctx) // what the machines sent since the last read, before their links go
	if err := d.machines.Close(ctx); err != nil {
		return fmt.Errorf("sandbox: close: %w", err)
	}
	return nil
}

// machine is the row of machine ref; ok is false for a machine that is only simulated (a
// Windows server, or one built before --machines sandbox).
func (d *Datacenter) machine(ctx context.Context, ref string) (store.Machine, bool, error) {
	m, err := d.state.Machine(ctx, ref)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Machine{}, false, nil
	case err != nil:
		return store.Machine{}, false, fmt.Errorf("sandbox: %w", err)
	}
	return m, true, nil
}

// failure is what the API is told of a machine operation that failed on the host: a
// datacenter error with a support reference (502), the cause in the log only.
func (d *Datacenter) failure(ctx context.Context, op, ref string, cause error) error {
	reference, err := datacenter.NewReference(rand.Reader)
	if err != nil {
		return fmt.Errorf("sandbox: %s: %w", op, err)
	}
	d.log.ErrorContext(ctx, "machine operation failed", slog.String("op", op), slog.String("machine", ref),
		slog.String("reference", reference), slog.Any("error", cause))
	return &datacenter.Error{Op: op, Reference: reference}
}

// passwordAlphabet avoids characters that need quoting in a shell, as the simulator's.
const passwordAlphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// newPassword returns a random 20-character password.
func newPassword() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	for i := range b {
		b[i] = passwordAlphabet[int(b[i])%len(passwordAlphabet)]
	}
	return string(b)
}

// newOpID returns a fresh op id.
func newOpID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "op-" + hex.EncodeToString(b)
}
