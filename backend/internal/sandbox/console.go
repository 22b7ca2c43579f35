package sandbox

import (
	"context"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
)

// ConsoleIssuer issues console sessions (*console.Consoles): a URL on resellerd and a fresh
// password for machine ref.
type ConsoleIssuer interface {
	Issue(ref string) (datacenter.Console, error)
}

// Console asks the simulator first (its faults; a Windows server's console stays its
// simulated URL), then issues a console of this process for a Linux server's machine: a page
// on resellerd with a root shell on the machine's PTY (package console). The machine must run
// on this host, whose process serves the console.
func (d *Datacenter) Console(ctx context.Context, ref string) (datacenter.Console, error) {
	c, err := d.sim.Console(ctx, ref)
	if err != nil || d.consoles == nil {
		return c, err
	}
	row, ok, err := d.machine(ctx, ref)
	if err != nil || !ok {
		return c, err
	}
	if row.Host != d.host {
		return datacenter.Console{}, d.failure(ctx, "console", ref,
			fmt.Errorf("machine %s runs on host %s; its console is served by that host's resellerd", ref, row.Host))
	}
	issued, err := d.consoles.Issue(ref)
	if err != nil {
		return datacenter.Console{}, d.failure(ctx, "console", ref, err)
	}
	return issued, nil
}

// Terminal opens a root shell on the PTY of machine ref, which runs on this host: what a
// console's page shows.
func (d *Datacenter) Terminal(ctx context.Context, ref string, cols, rows int) (*machines.Terminal, error) {
	return d.machines.Console(ctx, ref, cols, rows)
}
