// Package machines makes servers real on this host (`resellerd --machines sandbox`): each
// machine is a process tree in its own PID, mount, UTS and network namespaces, with a
// copy-on-write disk (overlayfs) over a read-only base image, its own IPv4 on a host bridge, and
// an SSH server on port 22. Two processes of resellerd's own binary run each machine: its
// PID 1 (package machineinit) and the agent serving SSH and the control channel (package agent).
//
// The Manager works on this host's machines only and knows nothing of orders, accounts or the
// database: the sandbox datacenter (package sandbox) decides what a machine should be and calls
// it. Every method is idempotent where the datacenter may call it twice (a retried job).
//
// Layout under Options.Dir:
//
//	manager.lock           flocked by the live Manager (one per Dir)
//	image/                 the assembled default image (when Options.Image is "")
//	machines/<ref>/        one machine: disk/upper, disk/work, root (the overlay's mount point,
//	                       inside the machine's mount namespace only), spec.json (with the image
//	                       its disk was made on), password (a hash, 0600), console.log (what
//	                       its init and agent wrote at boot)
//	snapshots/<image>/     a copy of a disk's upper layer, its password hash and its image's path
//
// What runs inside a machine, and how it is confined, is the doc of packages machineinit and
// agent. The host's side:
//
//   - Boot (boot.go): PID 1 is this binary re-executed from one locked OS thread (Pdeathsig
//     follows the forking thread), with new PID, mount, UTS, IPC and network namespaces; the
//     host then plugs its veth, hands it the password hash over the control channel, and waits
//     for SSH (bootTimeout). No user namespace: see package machineinit for why and
//     what instead.
//   - Power: Stop asks the agent to shut down (SIGTERM, SIGKILL after agent.ShutdownGrace),
//     kills PID 1 after stopTimeout (the kernel then kills the whole PID namespace), and
//     deletes the veth. Start boots from the same disk; the SSH host key is on the disk.
//   - Network (network.go): one bridge per Manager named after Dir, filter chains named after
//     the bridge. A CIDR already routed on the host is refused at New, naming the route.
//   - Passwords: bcrypt over SHA-256 (agent.HashPassword), in the machine's directory, 0600.
//   - Images (image.go): a fresh disk is made on its template's image (Options.ImageFor), else
//     on Options.Image or the busybox image assembled under Dir; a disk stays on the image it
//     was made on. An image with an os-release of its own (a Debian image from `resellerd
//     image build`, package imagebuild) keeps it; on one without, /etc/os-release names the
//     template.
//   - Snapshots (snapshot.go): copied while the machine runs, without freezing it.
//   - Limits (limits.go): enforced through cgroup v2 where it offers memory and cpu, recorded
//     only elsewhere (LimitsEnforced).
//
// Known limits: the machine's /proc/self/mountinfo shows the host paths of its disk (overlay
// options); machines keep CAP_NET_RAW (ping), so one could forge packets on the bridge as
// Docker's containers can; IPv6 is off on the host's side only (machines talk link-local IPv6
// among themselves); busybox's `wget -T` crashes (Debian's busybox-static): use `timeout N wget`.
package machines

import (
	"errors"
	"log/slog"
	"net/netip"
)

// Options shape a Manager.
type Options struct {
	Dir   string       // disks, snapshots and the default image
	CIDR  netip.Prefix // machine addresses; the first address is the host's side of the bridge
	Image string       // a root filesystem used read-only as every disk's base; "" assembles busybox's
	// ImageFor gives templates (Spec.Template) images of their own; templates not named use Image.
	ImageFor map[string]string
	Egress   bool // let machines reach beyond the machines' network
	Logger   *slog.Logger
}

// Spec is what a machine is made of.
type Spec struct {
	Ref      string     // the datacenter's machine ref, e.g. "vm-42"
	Hostname string     // the machine's hostname
	Template string     // the ordered template's name: picks the image (Options.ImageFor); /etc/os-release names it on an image without one
	IPv4     netip.Addr // inside Options.CIDR
	Username string     // "root"
	Password string     // the password SSH takes (stored only as a hash)
	Limits   Limits
}

// Limits are a plan's resources, applied where cgroup v2 is writable.
type Limits struct {
	CPUs     int
	MemoryMB int
}

// ErrNotFound is returned for a machine or snapshot this host does not have.
var ErrNotFound = errors.New("machines: not found")

// The Manager's methods (implemented in the package's other files):
//
//	func Check(o Options) error                       // what is missing (root, ip, iptables, busybox, overlay), with how to get it
//	func New(ctx context.Context, o Options) (*Manager, error) // bridge, host-side filter rules, image
//	func (m *Manager) Close(ctx context.Context) error // stops every machine cleanly (disks kept), removes bridge and rules
//	func (m *Manager) Create(ctx context.Context, s Spec, fromSnapshot string) error // a fresh disk (or a snapshot's), then boot
//	func (m *Manager) Start(ctx context.Context, ref string) error   // boot from its disk (power_on); no-op when running
//	func (m *Manager) Stop(ctx context.Context, ref string) error    // power_off: every process gone, SSH refused, disk kept
//	func (m *Manager) Reboot(ctx context.Context, ref string) error
//	func (m *Manager) Rebuild(ctx context.Context, ref, template, password string) error // fresh disk from the image, boot
//	func (m *Manager) SetPassword(ctx context.Context, ref, password string) error
//	func (m *Manager) CheckPassword(ctx context.Context, ref, password string) (bool, error)
//	func (m *Manager) SetAddress(ctx context.Context, ref string, ip netip.Addr) error // change_ip: old address answers nothing
//	func (m *Manager) SetLimits(ctx context.Context, ref string, l Limits) error
//	func (m *Manager) Snapshot(ctx context.Context, ref, image string) (sizeBytes int64, err error)
//	func (m *Manager) Restore(ctx context.Context, ref, image string) error // machine off, disk and password hash are the snapshot's
//	func (m *Manager) DeleteSnapshot(ctx context.Context, image string) error
//	func (m *Manager) Delete(ctx context.Context, ref string) error  // nothing of it left: process, mount, link, file
//	func (m *Manager) Run(ctx context.Context, ref string, script string, env map[string]string) (output string, exit int, err error)
//	func (m *Manager) Running(ref string) bool
//	func (m *Manager) Refs() []string                  // machines with a disk on this host
//	func (m *Manager) LimitsEnforced() bool            // whether Limits are enforced here (cgroup v2) or only recorded
