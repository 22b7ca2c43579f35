package sandbox

import (
	"context"
	"log/slog"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// downWriteTimeout bounds the write of a machine's down mark: the host's liveness watch waits
// on it, under the machine's lock.
const downWriteTimeout = 5 * time.Second

// FoundDown is told (machines.Options.FoundDown) of a machine of this host found down, its init
// exited or its agent not answering, before its host boots it again. The machine's row is
// marked down, so every replica's status read says offline (Live) until a boot works: the
// API never says online over a machine that answers nothing, for as long as its boots fail.
func (d *Datacenter) FoundDown(ref, reason string) {
	d.log.Warn("machine found down; its host boots it again", slog.String("machine", ref), slog.String("reason", reason))
	d.markDown(ref, true)
}

// Revived is told (machines.Options.Revived) of a machine found down and booted again (err
// nil) or not (the host tries again, and tells again; the host's own log says why). It counts
// it (Options.Revived); a machine booted again loses its down mark and runs its boot scripts,
// as every boot does: its apps' stand-ins answer again. The machine's power in the database
// stays online, as it was: a machine powered off is stopped, and never found down.
func (d *Datacenter) Revived(ref, reason string, err error) {
	if d.revived != nil {
		d.revived(reason, err)
	}
	if err != nil {
		return
	}
	d.log.Warn("machine found down and booted again", slog.String("machine", ref), slog.String("reason", reason))
	_ = d.booted(context.Background(), ref, nil)
}

// markDown sets or clears ref's down mark; a write that fails is logged (the mark then lags
// until the next boot or finding).
func (d *Datacenter) markDown(ref string, down bool) {
	ctx, cancel := context.WithTimeout(context.Background(), downWriteTimeout)
	defer cancel()
	if err := d.state.UpdateMachine(ctx, ref, func(m *store.Machine) { m.Down = down }); err != nil {
		d.log.ErrorContext(ctx, "machine down mark", slog.String("machine", ref), slog.Bool("down", down), slog.Any("error", err))
	}
}

// clearDown removes ref's down mark after a boot that worked, whichever asked for it (the
// liveness watch, a power_on, a reboot).
func (d *Datacenter) clearDown(ctx context.Context, ref string) {
	if row, ok, err := d.machine(ctx, ref); err == nil && ok && row.Down {
		d.markDown(ref, false)
	}
}
