package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Each method first asks the simulator, which injects the faults (nothing changes on a
// machine then), keeps the timing and answers for Windows servers; a Linux server's machine
// then gets the change.

// Build starts a build on the simulator and records the machine to build: on this host, or
// for a build from a snapshot on the host that holds the snapshot's image. Its password is
// drawn now, so every poll of the build answers the same one; a build from a snapshot takes
// the snapshot's, which the service hands over in the spec and hands out for it.
func (d *Datacenter) Build(ctx context.Context, spec datacenter.BuildSpec) (string, error) {
	ticket, err := d.sim.Build(ctx, spec)
	if err != nil || spec.OSType == catalog.OSWindows {
		return ticket, err
	}
	m := store.Machine{Ref: datacenter.MachineRef(spec.OrderID), Host: d.host, Password: newPassword(), Hostname: spec.Hostname,
		Power: datacenter.StatusOnline}
	if tmpl, ok := d.catalog.Template(spec.TemplateID); ok {
		m.Template = tmpl.Name.EN
	}
	if plan, ok := d.catalog.Plan(spec.PlanID); ok {
		m.CPUs, m.MemoryMB, m.DiskGB = plan.CPU, plan.MemoryGB*1024, plan.DiskGB
	}
	if spec.SnapshotPassword != "" {
		m.Password = spec.SnapshotPassword
	}
	if spec.SnapshotID != 0 {
		img, err := d.state.SnapshotMachineImage(ctx, spec.SnapshotID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", fmt.Errorf("sandbox: build: %w", err)
		}
		if err == nil { // a snapshot of a simulated server has no image: a fresh disk
			m.Host, m.FromImage = img.Host, img.Image
		}
	}
	stored, err := d.state.AddMachine(ctx, m)
	if err != nil {
		return "", fmt.Errorf("sandbox: build: %w", err)
	}
	d.startCreate(ctx, stored)
	return ticket, nil
}

// startCreate asks the machine's host to create and boot it now, while the simulator's build
// runs, as a datacenter builds a server during its build: by the time the build is done the
// machine is usually up, so Poll does not wait for a boot, and a batch of deploys is not held
// up by its slowest boot. Nobody waits for this op; a failed one is logged, and Poll's own
// create (createOpID) tries again. A build given up before its machine is up leaves nothing
// (see sweep.go).
func (d *Datacenter) startCreate(ctx context.Context, m store.Machine) {
	op := store.MachineOp{ID: buildOpID(m.Ref), Host: m.Host, Ref: m.Ref, Kind: opCreate}
	if _, err := d.state.AddMachineOp(ctx, op); err != nil {
		d.log.WarnContext(ctx, "start building the machine; its build's poll will", slog.String("machine", m.Ref), slog.Any("error", err))
		return
	}
	if m.Host == d.host {
		d.wakeReconciler()
	}
}

// Poll reports a build done once the simulator says so and the machine exists on its host,
// with the machine's address and password. The machine is usually up already (startCreate);
// if not, Poll asks its host for it again when its create failed, and never waits for a boot:
// a batch of deploys goes on while one machine boots, or fails to.
func (d *Datacenter) Poll(ctx context.Context, ticket string) (datacenter.Build, error) {
	b, err := d.sim.Poll(ctx, ticket)
	if err != nil || !b.Done {
		return b, err
	}
	row, ok, err := d.machine(ctx, b.Machine.Ref)
	if err != nil || !ok {
		return b, err
	}
	if !row.Created {
		// Still being built by startCreate's op: done at a later poll, once it is up, so this
		// order's deploy does not wait for its boot and no other order's waits for it either.
		// A create that failed was forgotten: it is asked again, and not waited for either.
		building, err := d.building(ctx, row.Ref)
		if err != nil {
			return datacenter.Build{}, err
		}
		if !building {
			d.startCreate(ctx, row)
		}
		return datacenter.Build{}, nil
	}
	b.Machine.IPv4, b.Machine.Password, b.Machine.Username, b.Machine.Port = row.IPv4, row.Password, "root", 22
	return b, nil
}

// Live is the simulator's power status and, for a machine, the traffic counted from its
// interface, read now (traffic.go).
//
// A machine its host found down (its init exited, its agent stopped) and has not booted again
// yet reads offline, whatever its power should be: while its host boots it again, or, when that
// keeps failing, until a boot works (FoundDown). The API never says online over a machine that
// answers nothing.
func (d *Datacenter) Live(ctx context.Context, ref string, cycleStart time.Time) (datacenter.Live, error) {
	return d.live(ctx, ref, cycleStart, true)
}

// LiveStored is Live reading only this host's machines now; another host's machine reports the
// count its host stored last (datacenter.StoredTraffic).
func (d *Datacenter) LiveStored(ctx context.Context, ref string, cycleStart time.Time) (datacenter.Live, error) {
	return d.live(ctx, ref, cycleStart, false)
}

// live is Live; remote asks another host for a read of its machine and waits for it.
func (d *Datacenter) live(ctx context.Context, ref string, cycleStart time.Time, remote bool) (datacenter.Live, error) {
	live, err := d.sim.Live(ctx, ref, cycleStart)
	if err != nil {
		return live, err
	}
	row, ok, err := d.machine(ctx, ref)
	if err != nil || !ok {
		return live, nil // a simulated server: the simulator's traffic
	}
	live.Counted, live.CountedBytes, live.TrafficUsedGB = true, row.Traffic.Bytes, 0
	if row.Host == d.host || remote {
		live.CountedBytes = d.countedTraffic(ctx, row)
	}
	if live.Status == datacenter.StatusOnline && row.Down {
		live.Status = datacenter.StatusOffline
	}
	return live, nil
}

// Power stops, boots or reboots the machine, and records what the database says it should be.
func (d *Datacenter) Power(ctx context.Context, ref, action string) (datacenter.Transition, error) {
	tr, err := d.sim.Power(ctx, ref, action)
	if err != nil {
		return tr, err
	}
	return tr, d.change(ctx, ref, action, nil, func(m *store.Machine) { m.Power = tr.Settled })
}

// Rebuild gives the machine a fresh disk from the image, the template named, and the
// simulator's new password. A rebuild to Windows removes the machine: the server is the
// simulator's from then on, as Windows servers are (and a Windows server rebuilt to Linux stays
// the simulator's: it has no machine to rebuild).
func (d *Datacenter) Rebuild(ctx context.Context, ref string, templateID int64, osType string) (datacenter.Rebuilt, error) {
	rb, err := d.sim.Rebuild(ctx, ref, templateID, osType)
	if err != nil {
		return rb, err
	}
	if osType == catalog.OSWindows {
		return rb, d.change(ctx, ref, opDelete, nil, nil)
	}
	tmpl, _ := d.catalog.Template(templateID)
	args := map[string]string{"template": tmpl.Name.EN, "password": rb.Password}
	return rb, d.change(ctx, ref, opRebuild, args, func(m *store.Machine) {
		m.Template, m.Power = tmpl.Name.EN, datacenter.StatusOnline
	})
}

// ResetPassword sets the simulator's new password on the machine.
func (d *Datacenter) ResetPassword(ctx context.Context, ref string) (string, error) {
	pw, err := d.sim.ResetPassword(ctx, ref)
	if err != nil {
		return "", err
	}
	return pw, d.change(ctx, ref, opSetPassword, map[string]string{"password": pw}, nil)
}

// SetRootPasswordOutOfBand changes the machine's root password behind the service's back, as
// a user logged in over SSH would (`POST /_dev/instances/{id}/password-changed`).
func (d *Datacenter) SetRootPasswordOutOfBand(ctx context.Context, ref string) error {
	if err := d.sim.SetRootPasswordOutOfBand(ctx, ref); err != nil {
		return err
	}
	return d.change(ctx, ref, opSetPassword, map[string]string{"password": newPassword()}, nil)
}

// ChangeIP moves the machine to the next address of the upper half of its host's range; the
// simulator decides whether it was a clean one (and so charged).
func (d *Datacenter) ChangeIP(ctx context.Context, ref string, datacenterID int64, clean bool) (datacenter.IPChange, error) {
	change, err := d.sim.ChangeIP(ctx, ref, datacenterID, clean)
	if err != nil {
		return change, err
	}
	row, ok, err := d.machine(ctx, ref)
	if err != nil || !ok {
		return change, err
	}
	cidr, err := netip.ParsePrefix(row.CIDR)
	if err != nil {
		return datacenter.IPChange{}, fmt.Errorf("sandbox: change_ip: machine %s has no range: %w", ref, err)
	}
	n, err := d.nextChange(ctx)
	if err != nil {
		return datacenter.IPChange{}, err
	}
	ip := changeAddress(cidr, n).String()
	err = d.change(ctx, ref, opSetAddress, map[string]string{"ipv4": ip}, func(m *store.Machine) { m.IPv4 = ip })
	return datacenter.IPChange{IPv4: ip, Clean: change.Clean}, err
}

// Resize applies the new plan's limits (cgroup v1 or v2, where the host offers the controllers;
// see package machines).
func (d *Datacenter) Resize(ctx context.Context, ref string, planID int64) (datacenter.Transition, error) {
	tr, err := d.sim.Resize(ctx, ref, planID)
	if err != nil {
		return tr, err
	}
	plan, _ := d.catalog.Plan(planID)
	args := map[string]string{"cpus": strconv.Itoa(plan.CPU), "memory_mb": strconv.Itoa(plan.MemoryGB * 1024), "disk_gb": strconv.Itoa(plan.DiskGB)}
	return tr, d.change(ctx, ref, opSetLimits, args, func(m *store.Machine) {
		m.CPUs, m.MemoryMB, m.DiskGB, m.Power = plan.CPU, plan.MemoryGB*1024, plan.DiskGB, datacenter.StatusOnline
	})
}

// Delete removes the machine: no process, mount, link or file of it is left on its host.
func (d *Datacenter) Delete(ctx context.Context, ref string) error {
	if err := d.sim.Delete(ctx, ref); err != nil {
		return err
	}
	return d.change(ctx, ref, opDelete, nil, nil)
}

// CheckPassword asks the machine whether password logs in as root.
func (d *Datacenter) CheckPassword(ctx context.Context, ref, password string) (bool, error) {
	row, ok, err := d.machine(ctx, ref)
	switch {
	case err != nil:
		return false, err
	case !ok:
		return d.sim.CheckPassword(ctx, ref, password)
	}
	op, err := d.do(ctx, row.Host, store.MachineOp{Ref: ref, Kind: opCheckPassword, Wait: true,
		Args: map[string]string{"password": password}})
	if err != nil {
		return false, d.failure(ctx, "check password", ref, err)
	}
	return op.Result == "true", nil
}

// change asks the machine's host for an op and stores what update makes of its row (nil:
// nothing), for a machine the sandbox has; a simulated one is left to the simulator. The row is
// written first (the op's host may read it), and put back when the op fails: an op given up at
// its deadline is never applied, and a restart, which boots what the row says, must find the
// machine as it is.
func (d *Datacenter) change(ctx context.Context, ref, kind string, args map[string]string, update func(*store.Machine)) error {
	row, ok, err := d.machine(ctx, ref)
	if err != nil || !ok {
		return err
	}
	if update != nil {
		if err := d.state.UpdateMachine(ctx, ref, update); err != nil {
			return fmt.Errorf("sandbox: %s: %w", kind, err)
		}
	}
	if _, err := d.do(ctx, row.Host, store.MachineOp{Ref: ref, Kind: kind, Args: args}); err != nil {
		if update != nil {
			if restoreErr := d.state.UpdateMachine(context.WithoutCancel(ctx), ref, func(m *store.Machine) { *m = row }); restoreErr != nil {
				d.log.ErrorContext(ctx, "sandbox: put the machine's row back after a failed op", "ref", ref, "op", kind, "error", restoreErr)
			}
		}
		return d.failure(ctx, kind, ref, err)
	}
	return nil
}

// building reports whether startCreate's create of machine ref is still to be applied or
// being applied (its host deletes the op once applied).
func (d *Datacenter) building(ctx context.Context, ref string) (bool, error) {
	op, err := d.state.MachineOp(ctx, buildOpID(ref))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("sandbox: %w", err)
	}
	return op.Status == store.MachineOpPending, nil
}

// buildOpID is the id of startCreate's create of machine ref.
func buildOpID(ref string) string { return "build-" + ref }
