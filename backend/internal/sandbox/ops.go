package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The kinds of op a host applies to its machines (besides the power actions, which keep their
// API names).
const (
	opCreate         = "create"
	opRebuild        = "rebuild"
	opSetPassword    = "set_password"
	opCheckPassword  = "check_password"
	opSetAddress     = "set_address"
	opSetLimits      = "set_limits"
	opSnapshot       = "snapshot"
	opRestore        = "restore"
	opDeleteSnapshot = "delete_snapshot"
	opDelete         = "delete"
	opRun            = "run"
	opTraffic        = "traffic"
)

// envPrefix marks the arguments of a run op that are its environment.
const envPrefix = "env:"

// Timings of the ops and of the reconciler.
const (
	// waitPoll is how often a caller waiting for another host's op reads it.
	waitPoll = 50 * time.Millisecond
	// fullPassEvery is the longest the reconciler goes without reading its pending ops, for
	// the notifications it may have missed.
	fullPassEvery = 5 * time.Second
	// opsPerPass bounds the ops one pass reads.
	opsPerPass = 100
	// sweepEvery is how often the reconciler removes the machines of timed-out orders.
	sweepEvery = time.Minute
)

// do asks host for op and returns it as applied. On this host it is applied now, after the
// machine's earlier pending ops, and its error is returned; on another host it is written for
// that host's reconciler, and waited for only when op.Wait. A call waited for is bounded by
// ctx's deadline, or its kind's (opTimeout), which the op carries to its host.
func (d *Datacenter) do(ctx context.Context, host string, op store.MachineOp) (store.MachineOp, error) {
	op.Host = host
	if op.ID == "" {
		op.ID = newOpID()
	}
	local := host == d.host
	if local {
		op.Wait = true // kept once applied, so this call reads its outcome
	}
	if op.Wait {
		var cancel context.CancelFunc
		ctx, cancel = withDefault(ctx, opTimeout(op.Kind))
		defer cancel()
		op.Args = withDeadlineArg(op.Args, ctx)
	}
	if _, err := d.state.AddMachineOp(ctx, op); err != nil {
		return store.MachineOp{}, fmt.Errorf("sandbox: %s %s: %w", op.Kind, op.Ref, err)
	}
	if local {
		d.runRef(ctx, op.Ref)
	} else if !op.Wait {
		return op, nil
	}
	return d.outcome(ctx, op)
}

// outcome waits until op has been applied (at once for an op of this host, which do has
// applied), reads it, and forgets it, within ctx (do gives it a deadline). A failed op is an
// error.
func (d *Datacenter) outcome(ctx context.Context, op store.MachineOp) (store.MachineOp, error) {
	for {
		got, err := d.state.MachineOp(ctx, op.ID)
		if err != nil {
			return store.MachineOp{}, fmt.Errorf("sandbox: %s %s: %w", op.Kind, op.Ref, err)
		}
		if got.Status != store.MachineOpPending {
			if err := d.state.DeleteMachineOp(ctx, op.ID); err != nil {
				d.log.WarnContext(ctx, "forget machine op", slog.String("op", op.ID), slog.Any("error", err))
			}
			if got.Status == store.MachineOpFailed {
				return got, fmt.Errorf("sandbox: %s %s on host %s: %s", op.Kind, op.Ref, op.Host, got.Result)
			}
			return got, nil
		}
		select {
		case <-ctx.Done():
			return store.MachineOp{}, fmt.Errorf("sandbox: %s %s: host %s did not answer in time: %w", op.Kind, op.Ref, op.Host, ctx.Err())
		case <-time.After(waitPoll):
		}
	}
}

// lock takes machine ref's lock, within ctx: its ops apply one at a time. It is a channel, not
// a mutex, so a caller whose deadline passes while another op of the machine runs gives up.
func (d *Datacenter) lock(ctx context.Context, ref string) (unlock func(), err error) {
	d.mu.Lock()
	l, ok := d.locks[ref]
	if !ok {
		l = make(chan struct{}, 1)
		d.locks[ref] = l
	}
	d.mu.Unlock()
	select {
	case l <- struct{}{}:
		return func() { <-l }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// runRef applies the pending ops of machine ref on this host, in the order asked, each within
// its deadline (opDeadline), a script beside the others (startRun). One whose waiter has given
// up is dropped, never applied late.
func (d *Datacenter) runRef(ctx context.Context, ref string) {
	unlock, err := d.lock(ctx, ref)
	if err != nil {
		return // the machine's earlier op still runs; its worker applies what is left
	}
	defer unlock()
	ops, err := d.state.PendingMachineOps(ctx, d.host, ref, opsPerPass)
	if err != nil {
		d.log.ErrorContext(ctx, "pending machine ops", slog.String("machine", ref), slog.Any("error", err))
		return
	}
	for _, op := range ops {
		if op.Kind == opRun {
			d.startRun(ctx, op)
			continue
		}
		d.applyBounded(ctx, op)
	}
}

// startRun applies a run op (an app install's script) beside the machine's other ops, not
// under its lock: a script may run until its deadline, and the machine's power, password,
// snapshot or delete asked meanwhile (a snapshot the accounts worker waits for) must not wait
// for it. A run already started is left to the goroutine running it.
func (d *Datacenter) startRun(ctx context.Context, op store.MachineOp) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.runs[op.ID] {
		return
	}
	d.runs[op.ID] = true
	go func() {
		defer func() {
			d.mu.Lock()
			delete(d.runs, op.ID)
			d.mu.Unlock()
		}()
		d.applyBounded(ctx, op)
	}()
}

// applyBounded applies op within its deadline and records its outcome, even once ctx is over.
func (d *Datacenter) applyBounded(ctx context.Context, op store.MachineOp) {
	at, asked := opDeadline(op)
	if asked && !time.Now().Before(at) {
		d.log.WarnContext(ctx, "machine op dropped: its caller's deadline passed before it could start", slog.String("op", op.Kind),
			slog.String("machine", op.Ref))
		if err := d.state.DeleteMachineOp(context.WithoutCancel(ctx), op.ID); err != nil {
			d.log.ErrorContext(ctx, "forget machine op", slog.String("op", op.ID), slog.Any("error", err))
		}
		return
	}
	octx, cancel := context.WithDeadline(ctx, at)
	defer cancel()
	out := d.apply(octx, op)
	if out.err != nil && errors.Is(octx.Err(), context.DeadlineExceeded) {
		out.err = fmt.Errorf("%s timed out (its deadline %s): %w", op.Kind, at.Format(time.RFC3339), out.err)
	}
	d.finish(context.WithoutCancel(ctx), op, out)
}

// outcomeOf is what applying an op gave: its result text and exit status.
type outcomeOf struct {
	result string
	exit   int
	err    error
}

// removals are the ops that free what a machine holds on its host. One that fails with nobody
// waiting for it stays pending and is tried again at the next pass: the service has already
// counted the machine or image gone, so nothing else would ever remove it.
var removals = map[string]bool{opDelete: true, opDeleteSnapshot: true}

// finish records an applied op: its outcome for the caller waiting for it, or nothing (the
// row goes) when nobody waits. A failure nobody waits for is logged, and a removal's is kept
// to be tried again.
func (d *Datacenter) finish(ctx context.Context, op store.MachineOp, out outcomeOf) {
	var err error
	switch {
	case !op.Wait && out.err != nil && removals[op.Kind]:
		d.log.ErrorContext(ctx, "machine removal failed; tried again at the next pass", slog.String("op", op.Kind),
			slog.String("machine", op.Ref), slog.Any("error", out.err))
		return
	case op.Wait && out.err != nil:
		err = d.state.FinishMachineOp(ctx, op.ID, store.MachineOpFailed, out.err.Error(), out.exit)
	case op.Wait:
		err = d.state.FinishMachineOp(ctx, op.ID, store.MachineOpDone, out.result, out.exit)
	default:
		if out.err != nil {
			d.log.ErrorContext(ctx, "machine op failed", slog.String("op", op.Kind), slog.String("machine", op.Ref),
				slog.Any("error", out.err))
		}
		err = d.state.DeleteMachineOp(ctx, op.ID)
	}
	if err != nil {
		d.log.ErrorContext(ctx, "record machine op", slog.String("op", op.ID), slog.Any("error", err))
	}
}

// apply carries out one op on this host's machine runtime.
func (d *Datacenter) apply(ctx context.Context, op store.MachineOp) outcomeOf {
	a, ref, m := op.Args, op.Ref, d.machines
	if unplugs[op.Kind] {
		d.countBeforeUnplug(ctx, ref)
	}
	var err error
	switch op.Kind {
	case opCreate:
		err = d.create(ctx, ref)
	case datacenter.PowerOn:
		err = d.booted(ctx, ref, m.Start(ctx, ref))
	case datacenter.PowerOff:
		err = m.Stop(ctx, ref)
	case datacenter.Reboot:
		err = d.booted(ctx, ref, m.Reboot(ctx, ref))
	case opRebuild:
		err = m.Rebuild(ctx, ref, a["template"], a["password"])
	case opSetPassword:
		err = m.SetPassword(ctx, ref, a["password"])
	case opCheckPassword:
		ok, err := m.CheckPassword(ctx, ref, a["password"])
		return outcomeOf{result: strconv.FormatBool(ok), err: err}
	case opSetAddress:
		err = d.setAddress(ctx, ref, a["ipv4"])
	case opSetLimits:
		err = d.setLimits(ctx, ref, a)
	case opSnapshot:
		err = d.snapshot(ctx, ref, a["image"])
	case opRestore:
		err = m.Restore(ctx, ref, a["image"])
	case opDeleteSnapshot:
		err = d.deleteSnapshot(ctx, a["image"])
	case opDelete:
		err = d.delete(ctx, ref)
	case opRun:
		return d.run(ctx, ref, a)
	case opTraffic:
		err = d.countTraffic(ctx, ref)
	default:
		err = fmt.Errorf("unknown op %q", op.Kind)
	}
	return outcomeOf{err: err}
}

// create builds machine ref on this host from its row, unless it is built already: the
// address is derived here, from this host's range.
func (d *Datacenter) create(ctx context.Context, ref string) error {
	row, err := d.state.Machine(ctx, ref)
	if err != nil || row.Created {
		return err
	}
	switch gone, err := d.givenUp(ctx, ref); {
	case err != nil:
		return err
	case gone: // asked before its order timed out, applied after (this host was down)
		if err := d.state.DeleteMachine(ctx, ref); err != nil {
			return err
		}
		return fmt.Errorf("its order timed out: the machine is not built")
	}
	orderID, _ := datacenter.OrderOfRef(ref) // a ref of another form (0) still gets an address of the range
	ip := buildAddress(d.cidr, orderID)
	spec := machines.Spec{Ref: ref, Hostname: row.Hostname, Template: row.Template, IPv4: ip, Username: "root",
		Password: row.Password, Limits: machines.Limits{CPUs: row.CPUs, MemoryMB: row.MemoryMB, DiskGB: row.DiskGB}}
	if err := d.booted(ctx, ref, d.machines.Create(ctx, spec, row.FromImage)); err != nil {
		return err
	}
	return d.state.UpdateMachine(ctx, ref, func(m *store.Machine) {
		m.Created, m.IPv4, m.CIDR = true, ip.String(), d.cidr.String()
	})
}

func (d *Datacenter) setAddress(ctx context.Context, ref, ipv4 string) error {
	ip, err := netip.ParseAddr(ipv4)
	if err != nil {
		return fmt.Errorf("address %q: %w", ipv4, err)
	}
	return d.machines.SetAddress(ctx, ref, ip)
}

// setLimits applies a plan's limits; a resize leaves the machine running, as the simulator
// reports it.
func (d *Datacenter) setLimits(ctx context.Context, ref string, a map[string]string) error {
	cpus, err1 := strconv.Atoi(a["cpus"])
	mem, err2 := strconv.Atoi(a["memory_mb"])
	disk, err3 := 0, error(nil)
	if v, ok := a["disk_gb"]; ok { // absent from an op asked before disks had a size
		disk, err3 = strconv.Atoi(v)
	}
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("limits: %w", err)
	}
	if err := d.machines.SetLimits(ctx, ref, machines.Limits{CPUs: cpus, MemoryMB: mem, DiskGB: disk}); err != nil {
		return err
	}
	return d.booted(ctx, ref, d.machines.Start(ctx, ref))
}

// bootServices is what a machine does once booted, as an OS's boot does: it announces its
// address (an unsolicited ARP, so the host's neighbour entry of a previous boot, whose link had
// another MAC address, is replaced at once instead of after it expires: without it a machine
// rebooted moments after it was reached may answer nothing for a minute), and runs every boot
// script (rcDir): its apps' services. Each script starts only what is not running. (A Debian
// image has busybox without its applets' links, so arping falls back to busybox's.)
const bootServices = `command -v arping >/dev/null 2>&1 || arping() { busybox arping "$@"; }
for a in $(ip -4 addr show dev eth0 2>/dev/null | sed -n 's/.* inet \([0-9.]*\)\/.*/\1/p'); do
	arping -q -U -c 1 -I eth0 "$a" >/dev/null 2>&1 &
done
for f in ` + rcDir + `/*; do [ -x "$f" ] && "$f" >/dev/null 2>&1; done
true`

// booted starts the boot scripts of a machine that has just booted (err is the boot's
// error, returned as it is). A script that fails is logged: the machine is up all the same.
func (d *Datacenter) booted(ctx context.Context, ref string, err error) error {
	if err != nil {
		return err
	}
	d.clearDown(ctx, ref)
	ctx, cancel := context.WithTimeout(ctx, bootScriptsTimeout)
	defer cancel()
	if _, _, err := d.machines.Run(ctx, ref, bootServices, nil); err != nil {
		d.log.WarnContext(ctx, "boot scripts", slog.String("machine", ref), slog.Any("error", err))
	}
	return nil
}

// snapshot copies the disk and records the copy's size; a copy that failed is recorded as
// failed, which the snapshot's poll reports.
func (d *Datacenter) snapshot(ctx context.Context, ref, image string) error {
	size, err := d.machines.Snapshot(ctx, ref, image)
	if ferr := d.state.FinishMachineImage(ctx, image, err != nil, size); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

func (d *Datacenter) deleteSnapshot(ctx context.Context, image string) error {
	if err := d.machines.DeleteSnapshot(ctx, image); err != nil && !errors.Is(err, machines.ErrNotFound) {
		return err
	}
	return d.state.DeleteMachineImage(ctx, image)
}

// delete removes the machine and forgets it.
func (d *Datacenter) delete(ctx context.Context, ref string) error {
	if err := d.machines.Delete(ctx, ref); err != nil && !errors.Is(err, machines.ErrNotFound) {
		return err
	}
	return d.state.DeleteMachine(ctx, ref)
}

// run runs a script in the machine: its output is the result, a non-zero exit the exit.
func (d *Datacenter) run(ctx context.Context, ref string, a map[string]string) outcomeOf {
	env := map[string]string{}
	for k, v := range a {
		if name, ok := strings.CutPrefix(k, envPrefix); ok {
			env[name] = v
		}
	}
	out, exit, err := d.machines.Run(ctx, ref, a["script"], env)
	return outcomeOf{result: out, exit: exit, err: err}
}

// Run is the reconciler: until ctx ends it applies the ops other replicas ask of this host,
// looking whenever the database's change version moves (or cannot be told: on SQLite, or while
// PostgreSQL's notifications are not heard, it looks at every tick) and at least every
// fullPassEvery. An op this process asks of its own host is applied in the call that asks it,
// except a build's create (startCreate), which nobody waits for: that one wakes Run
// (wakeReconciler). Every sweepEvery it also removes the machines of timed-out orders.
func (d *Datacenter) Run(ctx context.Context) {
	defer d.waitIdle() // the machines' workers, whose ops end with ctx
	ticker := time.NewTicker(d.look)
	defer ticker.Stop()
	sweeper := time.NewTicker(d.sweep)
	defer sweeper.Stop()
	var seen uint64
	var known bool
	last := time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-sweeper.C:
			d.sweepAbandoned(ctx)
			continue
		case <-d.wake:
		case <-ticker.C:
			v, ok := d.state.ChangeVersion(ctx)
			if ok && known && v == seen && time.Since(last) < fullPassEvery {
				continue
			}
			seen, known = v, ok
		}
		last = time.Now()
		d.dispatch(ctx)
	}
}

// wakeReconciler makes Run pass at once, for an op of this host that nobody applies inline.
func (d *Datacenter) wakeReconciler() {
	select {
	case d.wake <- struct{}{}:
	default: // a pass is due already
	}
}
