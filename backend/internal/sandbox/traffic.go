package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Traffic is counted by each machine's host from the host's end of its veth (machines.Traffic)
// and kept in the machine's row (store.TrafficCount): each read adds what the counter moved
// since the read before, so the count outlives the interface, which every boot makes anew
// (power cycles, reboots, a restart of resellerd), and a change_ip, which keeps it. A read of a
// new interface, or of a counter that went backwards, counts that counter from 0: never a byte
// twice. Before an op that removes the interface (power_off, reboot, rebuild, restore, delete,
// and Close) the host reads it once more, so those bytes are not lost; only a machine found
// down and booted again loses what it sent since the last read (at most the traffic worker's
// minute). The service reckons the count into cycles (service/traffic.go).

// trafficReadTimeout bounds the read of a machine on another host, which that host's
// reconciler applies (an op waited for): past it the count stored is used.
const trafficReadTimeout = 10 * time.Second

// unplugs are the ops that remove a machine's interface: its counter is read before them.
var unplugs = map[string]bool{datacenter.PowerOff: true, datacenter.Reboot: true, opRebuild: true, opRestore: true, opDelete: true}

// addTraffic is count after a read r of the machine's interface: the difference from the last
// read of the same interface, or all of r for a new interface or a counter that went back.
func addTraffic(count store.TrafficCount, r machines.Traffic) store.TrafficCount {
	delta := r.Bytes
	if r.Link == count.Link && r.Bytes >= count.Counter {
		delta = r.Bytes - count.Counter
	}
	return store.TrafficCount{Bytes: count.Bytes + max(delta, 0), Link: r.Link, Counter: r.Bytes}
}

// countTraffic reads machine ref of this host and adds what it moved to its row, under the
// row's lock (two reads at once never add the same bytes twice). A machine that is off has no
// interface: nothing to add; nor does a counter that has not moved, which writes nothing.
func (d *Datacenter) countTraffic(ctx context.Context, ref string) error {
	row, _, err := d.machine(ctx, ref)
	if err != nil {
		row = store.Machine{} // compared with nothing: the read is added under the row's lock
	}
	row.Ref = ref
	_, err = d.addTrafficRead(ctx, row)
	return err
}

// addTrafficRead is countTraffic of a row just read (the traffic worker's, which has it), and
// returns the count the row then holds: row's own when the counter has not moved since the read
// it records, or when the machine has no interface. The comparison only spares a write: an
// update re-reads the row under its lock and adds the read to what it holds then.
func (d *Datacenter) addTrafficRead(ctx context.Context, row store.Machine) (int64, error) {
	r, ok, err := d.machines.Traffic(row.Ref)
	if err != nil || !ok {
		return row.Traffic.Bytes, err
	}
	if row.Traffic.Link == r.Link && row.Traffic.Counter == r.Bytes {
		return row.Traffic.Bytes, nil
	}
	var count int64
	if err := d.state.UpdateMachine(ctx, row.Ref, func(m *store.Machine) {
		m.Traffic = addTraffic(m.Traffic, r)
		count = m.Traffic.Bytes
	}); err != nil {
		return 0, fmt.Errorf("sandbox: count traffic of %s: %w", row.Ref, err)
	}
	return count, nil
}

// countBeforeUnplug is countTraffic before an op that removes the interface; a failure is
// logged, and the op goes on.
func (d *Datacenter) countBeforeUnplug(ctx context.Context, ref string) {
	if err := d.countTraffic(ctx, ref); err != nil {
		d.log.WarnContext(ctx, "traffic read before the interface goes", slog.String("machine", ref), slog.Any("error", err))
	}
}

// countHostTraffic reads every machine of this host (Close, before they stop).
func (d *Datacenter) countHostTraffic(ctx context.Context) {
	list, err := d.state.HostMachines(ctx, d.host)
	if err != nil {
		d.log.WarnContext(ctx, "traffic read at close", slog.Any("error", err))
		return
	}
	for _, m := range list {
		if m.Created {
			d.countBeforeUnplug(ctx, m.Ref)
		}
	}
}

// countedTraffic reads row's machine now, on this host or through an op its host applies, and
// returns its count; when the read fails the count stored is returned (and the failure logged).
func (d *Datacenter) countedTraffic(ctx context.Context, row store.Machine) int64 {
	count, err := d.readTraffic(ctx, row)
	if err != nil {
		d.log.WarnContext(ctx, "traffic read; the count stored is used", slog.String("machine", row.Ref), slog.Any("error", err))
		return row.Traffic.Bytes
	}
	return count
}

// readTraffic is countedTraffic's read. On this host it reads no row but the one it is given
// (the traffic worker reads every live machine every TrafficEvery: one row read a machine and
// a tick); another host's machine is read by an op that host applies, then its row.
func (d *Datacenter) readTraffic(ctx context.Context, row store.Machine) (int64, error) {
	if row.Host == d.host {
		return d.addTrafficRead(ctx, row)
	}
	rctx, cancel := context.WithTimeout(ctx, trafficReadTimeout)
	_, err := d.do(rctx, row.Host, store.MachineOp{Ref: row.Ref, Kind: opTraffic, Wait: true})
	cancel()
	if err != nil {
		return 0, err
	}
	m, ok, err := d.machine(ctx, row.Ref) // the count its host stored
	if err != nil || !ok {
		return row.Traffic.Bytes, nil
	}
	return m.Traffic.Bytes, nil
}
