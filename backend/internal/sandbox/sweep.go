package sandbox

import (
	"context"
	"log/slog"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// A build whose order times out is given up by the service, which never asks the datacenter
// about it again. Its machine row stays, and its machine may even exist: a create asked of a
// host that was down is applied when the host comes back, possibly after the order's window
// has passed, and a create applied while the order timed out in the same moment is not
// deployed. Nobody would pay for such a machine and no call would ever reach it, so each host
// removes its own: create refuses an abandoned build, Boot sweeps before starting anything,
// and the reconciler sweeps every SweepEvery. The sweep reads this host's machines (rows that
// exist now, not every row ever stored) and asks the service of each (Options.GivenUp): the
// datacenter reads no orders.

// sweepAbandoned removes every machine of this host whose build the service gave up: the
// machine, if it exists, and its row. A failure is logged and tried again at the next sweep.
func (d *Datacenter) sweepAbandoned(ctx context.Context) {
	list, err := d.state.HostMachines(ctx, d.host)
	if err != nil {
		if ctx.Err() == nil {
			d.log.ErrorContext(ctx, "sweep machines", slog.Any("error", err))
		}
		return
	}
	for _, m := range list {
		gone, err := d.givenUp(ctx, m.Ref)
		if err != nil {
			d.log.ErrorContext(ctx, "sweep machines", slog.String("machine", m.Ref), slog.Any("error", err))
			continue
		}
		if !gone {
			continue
		}
		// Through an op of this host, applied by the machine's worker after its pending ops,
		// under its lock: the sweep waits for no machine.
		// One such op per machine (its id says so): a removal that fails stays pending and is
		// tried again, and the next sweep asks nothing more.
		op := store.MachineOp{ID: "sweep-" + m.Ref, Host: d.host, Ref: m.Ref, Kind: opDelete}
		if _, err := d.state.AddMachineOp(ctx, op); err != nil {
			d.log.ErrorContext(ctx, "remove the machine of a timed-out order", slog.String("machine", m.Ref), slog.Any("error", err))
			continue
		}
		d.kick(ctx, m.Ref)
		d.log.InfoContext(ctx, "removing the machine of a timed-out order", slog.String("machine", m.Ref), slog.Bool("built", m.Created))
	}
}
