package resellerd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/console"
	"github.com/reseller/terraform-provider-reseller/backend/internal/machines"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sandbox"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/sim"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store/sqlstore"
)

// The ways servers are made (--machines).
const (
	MachinesSim     = "sim"     // servers are rows, as always
	MachinesSandbox = "sandbox" // every Linux server online is a running machine on its host
)

// DefaultMachinesCIDR is where machine addresses come from unless --machines-cidr says
// otherwise: 198.18.0.0/15 is reserved for benchmarking (RFC 2544), so it collides with no real
// network.
var DefaultMachinesCIDR = netip.MustParsePrefix("198.18.0.0/16")

// MachinesConfig is how servers are made (--machines and the flags beside it; see
// backend/docs/machines.md).
type MachinesConfig struct {
	Mode   string       // MachinesSim ("" too) or MachinesSandbox
	Dir    string       // disks, snapshots, the default image and this replica's host id
	CIDR   netip.Prefix // machine addresses; the zero prefix is DefaultMachinesCIDR
	Image  string       // a root filesystem, the read-only base of every disk; "" assembles busybox's
	Egress bool         // let machines reach globally reachable addresses beyond the machines' network
	// EgressAllow are the operator's own ranges machines reach with Egress though they are not
	// globally reachable (--machines-egress-allow-cidr); IPv4.
	EgressAllow []netip.Prefix
	// PidsMax caps each machine's processes (--machines-pids-max); 0 is
	// DefaultMachinesPidsMax.
	PidsMax int
	// ImageFor gives Linux templates (by id) images of their own; the others use Image.
	ImageFor map[int64]string
}

// DefaultMachinesPidsMax is --machines-pids-max's default.
const DefaultMachinesPidsMax = machines.DefaultPidsMax

// CheckMachinesPidsMax refuses a process cap a machine cannot run with or the kernel cannot
// count, naming the flag.
func CheckMachinesPidsMax(n int) error {
	if n < machines.MinPidsMax || n > machines.MaxPidsMax {
		return fmt.Errorf("--machines-pids-max must be from %d to %d, not %d", machines.MinPidsMax, machines.MaxPidsMax, n)
	}
	return nil
}

// Sandbox reports whether servers are real machines.
func (c MachinesConfig) Sandbox() bool { return c.Mode == MachinesSandbox }

// Validate refuses an unknown mode, a range addresses cannot come from, a process cap out of
// bounds, egress ranges egress does not use and images for ids that are no Linux template,
// naming the flag.
func (c MachinesConfig) Validate() error {
	switch c.Mode {
	case "", MachinesSim, MachinesSandbox:
	default:
		return fmt.Errorf("--machines must be %s or %s, not %q", MachinesSim, MachinesSandbox, c.Mode)
	}
	if c.CIDR.IsValid() {
		if err := sandbox.CheckCIDR(c.CIDR); err != nil {
			return fmt.Errorf("--machines-cidr: %w", err)
		}
	}
	if c.PidsMax != 0 {
		if err := CheckMachinesPidsMax(c.PidsMax); err != nil {
			return err
		}
	}
	if err := c.validateEgressAllow(); err != nil {
		return err
	}
	_, err := templateImages(c.ImageFor, catalog.New())
	return err
}

// validateEgressAllow refuses --machines-egress-allow-cidr without --machines-egress (it would
// allow nothing) and an IPv6 range (machines have IPv4 only).
func (c MachinesConfig) validateEgressAllow() error {
	if len(c.EgressAllow) > 0 && !c.Egress {
		return errors.New("--machines-egress-allow-cidr needs --machines-egress")
	}
	for _, p := range c.EgressAllow {
		if !p.Addr().Is4() {
			return fmt.Errorf("--machines-egress-allow-cidr: %s is not an IPv4 range", p)
		}
	}
	return nil
}

// templateImages maps ImageFor's template ids to the template names machines know templates
// by, refusing an id that is no Linux template of cat (Windows servers have no machine).
func templateImages(imageFor map[int64]string, cat *catalog.Catalog) (map[string]string, error) {
	if len(imageFor) == 0 {
		return nil, nil
	}
	byName := make(map[string]string, len(imageFor))
	for id, dir := range imageFor {
		t, ok := cat.Template(id)
		if !ok || t.OSType != catalog.OSLinux {
			return nil, fmt.Errorf("--machines-image-for: %d is not the id of a Linux template (%s)", id, linuxTemplates(cat))
		}
		byName[t.Name.EN] = dir
	}
	return byName, nil
}

// linuxTemplates lists cat's Linux templates as "id name", for an error.
func linuxTemplates(cat *catalog.Catalog) string {
	var list []string
	for _, t := range cat.Templates() {
		if t.OSType == catalog.OSLinux {
			list = append(list, fmt.Sprintf("%d %s", t.ID, t.Name.EN))
		}
	}
	return strings.Join(list, ", ")
}

// options are the machine runtime's options.
func (c MachinesConfig) options(log *slog.Logger) machines.Options {
	cidr := c.CIDR
	if !cidr.IsValid() {
		cidr = DefaultMachinesCIDR
	}
	// Validate has refused ids that are not Linux templates; none is left to refuse here.
	imageFor, _ := templateImages(c.ImageFor, catalog.New())
	return machines.Options{Dir: filepath.Clean(c.Dir), CIDR: cidr, Image: c.Image, ImageFor: imageFor, Egress: c.Egress,
		EgressAllow: c.EgressAllow, PidsMax: c.PidsMax, Logger: log}
}

// CheckMachines reports what this host lacks to run cfg's machines (root or user namespaces,
// ip, iptables, busybox, overlayfs), with how to get it; nil with --machines sim.
func CheckMachines(cfg Config) error {
	if !cfg.Machines.Sandbox() {
		return nil
	}
	if err := cfg.Machines.Validate(); err != nil {
		return err
	}
	return machines.Check(cfg.Machines.options(nil))
}

// machinesCloseTimeout bounds how long Close waits for the machines to stop.
const machinesCloseTimeout = 30 * time.Second

// openSandbox starts this host's machine runtime and the sandbox datacenter over the
// simulator dc, with its consoles, and boots the machines the database says are online here.
// The reconciler is started with the workers. revived counts the machines found down and
// booted again.
func openSandbox(ctx context.Context, cfg Config, st *sqlstore.Store, dc *sim.Sim, cat *catalog.Catalog,
	revived func(reason string, err error)) (*sandbox.Datacenter, *console.Consoles, error) {
	if err := cfg.Machines.Validate(); err != nil {
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	if cfg.Machines.Dir == "" {
		return nil, nil, fmt.Errorf("server: --machines-dir is required with --machines %s", MachinesSandbox)
	}
	opts := cfg.Machines.options(cfg.Logger)
	host, err := sandbox.HostID(opts.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("server: --machines-dir: %w", err)
	}
	// A console opens a terminal through sb, which exists before any console is issued.
	var sb *sandbox.Datacenter
	consoles, err := console.New(console.Options{PublicURL: cfg.PublicURL, TTL: cfg.ConsoleTTL, Logger: cfg.Logger,
		Open: func(ctx context.Context, ref string, cols, rows int) (console.Terminal, error) {
			return sb.Terminal(ctx, ref, cols, rows)
		}})
	if err != nil {
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	// The Manager tells the sandbox of the machines it found down and booted again; none runs
	// before sb.Boot, by when sb is set.
	opts.FoundDown = func(ref, reason string) { sb.FoundDown(ref, reason) }
	opts.Revived = func(ref, reason string, err error) { sb.Revived(ref, reason, err) }
	mgr, err := machines.New(ctx, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("server: --machines sandbox: %w", err)
	}
	sb, err = sandbox.New(sandbox.Options{Sim: dc, State: st, GivenUp: service.GivenUpBuilds(st), Machines: mgr, Catalog: cat, Host: host, CIDR: opts.CIDR,
		Logger: cfg.Logger, Revived: revived, Consoles: consoles})
	if err != nil {
		_ = mgr.Close(ctx)
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	if err := sb.Boot(ctx); err != nil {
		// A machine that does not boot is logged; the others and the API go on.
		cfg.Logger.ErrorContext(ctx, "boot machines", slog.Any("error", err))
	}
	cfg.Logger.InfoContext(ctx, "machines", slog.String("host", host), slog.String("dir", opts.Dir),
		slog.String("cidr", opts.CIDR.String()))
	return sb, consoles, nil
}

// consoleHandler is what serves /console/: consoles, or nothing without them.
func consoleHandler(consoles *console.Consoles) http.Handler {
	if consoles == nil {
		return nil
	}
	return consoles
}

// SetPublicURL sets how customers reach this backend, where console URLs point, unless
// Config.PublicURL did (--public-url wins); the command calls it with the listener's own URL.
// Without --machines sandbox it does nothing.
func (s *Server) SetPublicURL(u string) error {
	if s.consoles == nil || s.publicURLGiven {
		return nil
	}
	return s.consoles.SetPublicURL(u)
}

// closeMachines ends the consoles and stops this host's machines cleanly (disks kept), when
// there are any.
func (s *Server) closeMachines() error {
	if s.sandbox == nil {
		return nil
	}
	s.consoles.Close()
	ctx, cancel := context.WithTimeout(context.Background(), machinesCloseTimeout)
	defer cancel()
	return s.sandbox.Close(ctx)
}

// MachinesHost is this replica's host id under --machines sandbox, "" otherwise.
func (s *Server) MachinesHost() string {
	if s.sandbox == nil {
		return ""
	}
	return s.sandbox.Host()
}
