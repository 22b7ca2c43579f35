package sandbox

import (
	"context"
	"log/slog"
)

// Revived is told (machines.Options.Revived) of a machine of this host found down, its init
// exited or its agent not answering, and booted again (err nil) or not (the host tries again,
// and tells again). It counts it
// (Options.Revived) and starts the boot scripts of a machine booted again, as every boot does:
// its apps' stand-ins answer again. The machine's power in the database stays online, as it
// was: a machine powered off is stopped, and never found down.
func (d *Datacenter) Revived(ref, reason string, err error) {
	if d.revived != nil {
		d.revived(reason, err)
	}
	ctx := context.Background()
	if err != nil {
		d.log.ErrorContext(ctx, "machine found down and its boot failed; its host tries again", slog.String("machine", ref),
			slog.String("reason", reason), slog.Any("error", err))
		return
	}
	d.log.WarnContext(ctx, "machine found down and booted again", slog.String("machine", ref), slog.String("reason", reason))
	_ = d.booted(ctx, ref, nil)
}
