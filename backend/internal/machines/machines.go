// Package machines makes servers real on this host (`resellerd --machines sandbox`): each
// machine is a process tree in its own PID, mount, UTS and network namespaces, its root an
// unprivileged host uid (1000000) in a user namespace of its own, with a copy-on-write disk
// (overlayfs) of the plan's size over a read-only base image, its own IPv4 on a host bridge,
// and an SSH server on port 22. Two processes of resellerd's own binary run each machine: its
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
//	machines/<ref>/        one machine: disk.img (its disk's ext4, sparse, of the plan's size),
//	                       disk/ (where it is mounted while the machine runs: upper/ and work/),
//	                       root (where init mounts the layers, inside the machine's mount
//	                       namespace only), spec.json (with the image its disk was made on),
//	                       password (a hash, 0600), console.log (what its init and agent wrote
//	                       at boot)
//	snapshots/<image>/     a copy of a disk's upper layer, its password hash and its image's path
//
// What runs inside a machine, and how it is confined, is the doc of packages machineinit and
// agent. The host's side:
//
//   - Boot (boot.go): PID 1 is this binary re-executed from one locked OS thread (Pdeathsig
//     follows the forking thread), with new PID, mount, UTS, IPC and network namespaces; the
//     host places it in its cgroups (limits.go) and lets it go on, then plugs its veth,
//     hands it the password hash over the control channel, and waits for SSH (Options.BootTimeout).
//     The machine's user namespace (machineIDs) and its idmapped layers are init's work: see
//     package machineinit. The seccomp filter of what users run (package seccompfilter,
//     assembled ahead of time) is read once, at New, and handed to every init in its Boot.
//   - Disks (disk.go): a filesystem of the plan's size (Limits.DiskGB) on a loop device that
//     clears itself, mounted at disk/ while the machine runs, grown at SetLimits, never shrunk.
//   - Power: Stop asks the agent to shut down (SIGTERM, SIGKILL after agent.ShutdownGrace),
//     kills PID 1 after stopTimeout (the kernel then kills the whole PID namespace), and
//     deletes the veth. Start boots from the same disk; the SSH host key is on the disk (a
//     server built from a snapshot gets new keys: Create removes the copy's).
//   - Files in a disk (inroot.go): the host writes into a disk only the identity files (hosts,
//     hostname, os-release) and removes a copied disk's host keys, always through openat2
//     RESOLVE_IN_ROOT and a rename, so a symlink the machine's root left in its disk never leads
//     the host out of it. Everything else (app inputs, the host key) is written from inside.
//   - Deadlines (calls.go): every call over the control channel has one (a password
//     passwordTimeout, a script its caller's or defaultRunTimeout), so a machine whose agent is
//     stopped or whose script never ends fails the call made of it and holds nothing else.
//   - Liveness (liveness.go): a running machine whose PID 1 exits or whose agent does not
//     answer a ping is booted again from its disk and reported to Options.Revived; a machine
//     stopped on purpose stays off.
//   - Network (network.go): one bridge per Manager named after Dir, filter chains named after
//     the bridge. A CIDR already routed on the host is refused at New, naming the route. Each
//     machine's port (its veth's host end) has a filter of its own (portfilter.go): its frames
//     carry only its MAC and its IPv4 address, so CAP_NET_RAW inside cannot take another
//     machine's traffic. Egress reaches only globally reachable addresses and EgressAllow.
//   - Passwords: bcrypt over SHA-256 (agent.HashPassword), in the machine's directory, 0600.
//   - Images (image.go): a fresh disk is made on its template's image (Options.ImageFor), else
//     on Options.Image or the busybox image assembled under Dir; a disk stays on the image it
//     was made on. An image with an os-release of its own (a Debian image from `resellerd
//     image build`, package imagebuild) keeps it; on one without, /etc/os-release names the
//     template.
//   - Disk sets (diskset.go): machines/ and snapshots/ of a Dir whose Manager is closed, copied
//     (sparsely, reflinked where the file system can), moved and removed as one, for `resellerd
//     dev`'s reset, checkpoints and --state file; the rest of Dir (image, host id) stays.
//   - Snapshots (snapshot.go): copied while the machine runs, without freezing it, by a walker
//     that never follows a symlink the machine's root puts in its disk meanwhile (copytree.go).
//   - Limits (limits.go, cgroups.go): the plan's memory (no swap) and cores and
//     Options.PidsMax processes, in a cgroup per machine nested under the one resellerd was
//     started in, on cgroup v1 and v2; PID 1 waits until the host has placed it there, and the
//     machine's processes get a cgroup namespace, so they see their cgroup as "/". Recorded only
//     where the controllers are missing (LimitsEnforced).
//
// Known limits: every machine's root is the same host uid (one range, as LXD's default), so what
// the kernel counts per host uid (key quotas among others) may be shared by all machines; the
// port filter drops any frame that is not a machine's own IPv4 or ARP, IPv6 between machines
// too; busybox's `wget -T` crashes (Debian's busybox-static): use `timeout N wget`.
package machines

import (
	"errors"
	"log/slog"
	"net/netip"
	"time"
)

// Options shape a Manager.
type Options struct {
	Dir   string       // disks, snapshots and the default image
	CIDR  netip.Prefix // machine addresses; the first address is the host's side of the bridge
	Image string       // a root filesystem used read-only as every disk's base; "" assembles busybox's
	// ImageFor gives templates (Spec.Template) images of their own; templates not named use Image.
	ImageFor map[string]string
	Egress   bool // let machines reach globally reachable addresses beyond the machines' network
	// EgressAllow are ranges machines reach with Egress though they are not globally reachable
	// (an operator's own networks); IPv4.
	EgressAllow []netip.Prefix
	// PidsMax caps each machine's processes (0: DefaultPidsMax; MinPidsMax to MaxPidsMax).
	PidsMax int
	// BootTimeout bounds a boot, from PID 1 started to SSH listening (0: DefaultBootTimeout).
	// A machine boots in well under a second on an idle host; the bound is for a host that is
	// not, where failing boots only adds to the load.
	BootTimeout time.Duration
	Logger      *slog.Logger
	// FoundDown, when set, is told of each machine found down (liveness.go), its ref and why
	// (ReasonExited, ReasonUnresponsive), before it is booted again: from then until Revived
	// tells of a boot that works, the machine answers nothing. It runs under the machine's lock
	// and must return soon.
	FoundDown func(ref, reason string)
	// Revived, when set, is told of each machine found down and booted again (liveness.go):
	// its ref, why (ReasonExited, ReasonUnresponsive), and the boot's error (nil: it answers
	// again). It runs outside the machine's lock.
	Revived func(ref, reason string, err error)
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

// Limits are a plan's resources: CPUs and MemoryMB enforced through cgroups (v1 or v2) where
// the host offers the controllers (Manager.LimitsEnforced), the disk a filesystem of its size
// (disk.go).
type Limits struct {
	CPUs     int
	MemoryMB int
	DiskGB   int // the plan's disk; 0: a disk without a size of its own
	DiskMB   int // when not 0, the disk's size instead of DiskGB (tests' small disks)
}

// ErrNotFound is returned for a machine or snapshot this host does not have.
var ErrNotFound = errors.New("machines: not found")

// The Manager's methods (implemented in the package's other files):
//
//	func Check(o Options) error                       // what is missing (root, ip, iptables, busybox, overlay, user namespaces, idmapped mounts, loop devices, e2fsprogs), with how to get it
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
//	func (m *Manager) Traffic(ref string) (Traffic, bool, error) // its veth's ifindex and rx+tx bytes (traffic.go)
//	func (m *Manager) Refs() []string                  // machines with a disk on this host
//	func (m *Manager) LimitsEnforced() bool            // whether Limits are enforced here (cgroup v1 or v2) or only recorded
