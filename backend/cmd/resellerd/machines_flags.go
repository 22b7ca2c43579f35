package main

import (
	"flag"
	"fmt"
	"net"
	"strconv"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// defaultMachinesDir is where serve keeps the machines' disks unless --machines-dir says
// otherwise; dev keeps them in its temporary directory.
const defaultMachinesDir = "./data/machines"

// addMachinesFlags registers --machines and the flags beside it on fs, filling c with the
// defaults def (backend/docs/machines.md).
func addMachinesFlags(fs *flag.FlagSet, c *resellerd.MachinesConfig, def resellerd.MachinesConfig) {
	fs.StringVar(&c.Mode, "machines", def.Mode, "how servers are made: `sim` (servers are rows, as always) or sandbox "+
		"(every Linux server online is a running machine on this host with its own address, reachable over SSH with the API's "+
		"credentials; needs root or user namespaces, ip, iptables, busybox and overlayfs; Windows servers stay simulated)")
	fs.StringVar(&c.Dir, "machines-dir", def.Dir, "`DIR` of the machines' disks, snapshots, default image and this replica's host id "+
		"(--machines sandbox; dev: its temporary directory when empty)")
	c.CIDR = def.CIDR
	fs.Var((*cliflag.Prefix)(&c.CIDR), "machines-cidr", "IPv4 range (`CIDR`) the machines' addresses come from, reachable from this host "+
		"(its first address is the host's side of the bridge); replicas sharing a database take ranges of their own")
	fs.StringVar(&c.Image, "machines-image", def.Image, "`DIR` of a root filesystem, the read-only base of every disk "+
		"(default: assembled from busybox and resellerd's own parts)")
	c.ImageFor = def.ImageFor
	fs.Var((*cliflag.IDPaths)(&c.ImageFor), "machines-image-for", "Linux templates' own images, `ID=DIR,...` (template id to a root "+
		"filesystem, e.g. one built by `resellerd image build`; a machine on it keeps the image's /etc/os-release); "+
		"templates not named use --machines-image")
	fs.BoolVar(&c.Egress, "machines-egress", def.Egress, "let machines reach globally reachable addresses beyond the machines' network "+
		"(off: they reach only each other and nothing of the host)")
	fs.Var((*cliflag.CIDRList)(&c.EgressAllow), "machines-egress-allow-cidr", "IPv4 ranges (`CIDR,...`) machines reach with "+
		"--machines-egress though they are not globally reachable (your own networks); every other private, link-local "+
		"(169.254.169.254), shared or reserved address is refused")
	fs.IntVar(&c.PidsMax, "machines-pids-max", def.PidsMax, "most processes (`N`) each machine may have at once; past it a fork fails inside the machine "+
		"(its memory and cores are its plan's)")
}

// addConsoleFlags registers --public-url and --console-ttl on fs (backend/docs/machines.md).
func addConsoleFlags(fs *flag.FlagSet, c *resellerd.Config, def resellerd.Config) {
	fs.StringVar(&c.PublicURL, "public-url", def.PublicURL, "`URL` customers reach resellerd at (behind a proxy, the proxy's), where "+
		"--machines sandbox's console URLs point; default: the --listen listener's own URL")
	fs.DurationVar(&c.ConsoleTTL, "console-ttl", def.ConsoleTTL, "how long a console URL of --machines sandbox lives; after it the URL "+
		"answers 410 and its terminals are hung up")
}

// validateConsole refuses a --public-url that is no absolute http(s) URL and a --console-ttl
// that is not positive, naming the flag (exit 2).
func (o serveOptions) validateConsole(command string) error {
	if o.Config.ConsoleTTL <= 0 {
		return fmt.Errorf("%w: %s: --console-ttl must be positive", errUsage, command)
	}
	if o.Config.PublicURL == "" {
		return nil
	}
	if _, err := console.ParsePublicURL(o.Config.PublicURL); err != nil {
		return fmt.Errorf("%w: %s: %w", errUsage, command, err)
	}
	return nil
}

// listenerURL is the URL of a listener at addr: an unspecified address (0.0.0.0, [::]) is
// named as loopback, which reaches it from this machine.
func listenerURL(scheme string, addr net.Addr) string {
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		return scheme + "://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
	}
	return scheme + "://" + addr.String()
}

// defaultMachines are serve's machine flags.
var defaultMachines = resellerd.MachinesConfig{Mode: resellerd.MachinesSim, Dir: defaultMachinesDir, CIDR: resellerd.DefaultMachinesCIDR,
	PidsMax: resellerd.DefaultMachinesPidsMax}

// validateMachines refuses an unknown --machines, a --machines-cidr addresses cannot come from
// and a --machines-pids-max out of bounds (0 too, which Config takes as the default), naming
// the flag (exit 2).
func (o serveOptions) validateMachines(command string) error {
	err := o.Config.Machines.Validate()
	if err == nil && o.Config.Machines.PidsMax == 0 {
		err = resellerd.CheckMachinesPidsMax(0)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errUsage, command, err)
	}
	return nil
}
