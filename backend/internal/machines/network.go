package machines

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/delivery"
)

// network is one Manager's share of the host's network: a bridge named after its Dir (two
// Managers on one host, two replicas in a test, never share one), the host's address on it (the
// CIDR's first), and filter chains named after the bridge:
//
//	<bridge>-in   (INPUT, for packets from the bridge)  only replies to what the host began;
//	              so no host listener answers a machine, not even one bound to 0.0.0.0
//	<bridge>-fwd  (FORWARD, to or from the bridge)       machine to machine allowed; beyond the
//	              machines' network dropped unless Egress (then masqueraded, in <bridge>-nat),
//	              and even then only to globally reachable addresses and EgressAllow's ranges
//
// and, on each machine's port, a filter that keeps what the machine sends to its own MAC and
// IPv4 address (portfilter.go).
//
// IPv6 is disabled on the bridge and the host's ends of the veths, so a machine cannot reach
// the host through link-local IPv6 either. Machine ends are configured from the host, through
// the machine's network namespace, so root inside cannot undo the filters.
type network struct {
	dir    string // the Manager's Dir, kept as the bridge's alias (see abandoned)
	bridge string
	cidr   netip.Prefix
	host   netip.Addr
	egress bool
	allow  []netip.Prefix // reachable with egress though not globally reachable (EgressAllow)
	log    *slog.Logger
}

func newNetwork(dir string, o Options, log *slog.Logger) *network {
	return &network{dir: dir, bridge: bridgeName(dir), cidr: o.CIDR, host: o.CIDR.Addr().Next(), egress: o.Egress, allow: o.EgressAllow, log: log}
}

// bridgePrefix starts the name of every machines bridge.
const bridgePrefix = "rsm"

// bridgeName is bridgePrefix and 8 hex digits of the Dir's SHA-256 (interface names are 15
// bytes at most).
func bridgeName(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return bridgePrefix + hex.EncodeToString(sum[:4])
}

// vethName is the host's end of a machine's veth pair ("rv…") or its peer before it is moved
// and renamed eth0 ("rp…"), unique per bridge and ref.
func vethName(bridge, ref, prefix string) string {
	sum := sha256.Sum256([]byte(bridge + "/" + ref))
	return prefix + hex.EncodeToString(sum[:6])
}

func (n *network) chain(suffix string) string { return n.bridge + "-" + suffix }

// setUp removes what a crashed Manager on the same Dir left, refuses a CIDR routed elsewhere on
// the host, then creates the bridge and the filters.
func (n *network) setUp(ctx context.Context) error {
	n.removeStale(ctx)
	if err := n.checkRoutes(ctx); err != nil {
		return err
	}
	if err := ipBatch(ctx, fmt.Sprintf("link add %s type bridge\n", n.bridge)); err != nil {
		return fmt.Errorf("machines: create bridge %s: %w", n.bridge, err)
	}
	disableIPv6(n.bridge)
	batch := fmt.Sprintf("link set dev %s alias %s\naddr add %s/%d dev %s\nlink set %s up\n",
		n.bridge, n.dir, n.host, n.cidr.Bits(), n.bridge, n.bridge)
	if err := ipBatch(ctx, batch); err != nil {
		_ = n.tearDown(ctx)
		return fmt.Errorf("machines: address bridge %s: %w", n.bridge, err)
	}
	if err := n.probePortFilters(); err != nil {
		_ = n.tearDown(ctx)
		return err
	}
	if err := n.addFilters(ctx); err != nil {
		_ = n.tearDown(ctx)
		return err
	}
	n.log.Debug("bridge up", "bridge", n.bridge, "host", n.host)
	return nil
}

// route is what `ip -j route` says of one route.
type route struct {
	Dst string `json:"dst"`
	Dev string `json:"dev"`
}

// checkRoutes refuses a CIDR that overlaps a route of another interface (any table), naming
// the route: machines there would shadow, or be shadowed by, that network.
func (n *network) checkRoutes(ctx context.Context) error {
	out, err := command(ctx, "", "ip", "-4", "-j", "route", "show", "table", "all")
	if err != nil {
		return fmt.Errorf("machines: list routes: %w", err)
	}
	var routes []route
	if err := json.Unmarshal(out, &routes); err != nil {
		return fmt.Errorf("machines: list routes: %w", err)
	}
	removed := map[string]bool{} // bridges of Managers that are gone, removed below
	for _, r := range routes {
		if r.Dst == "default" || r.Dev == n.bridge || removed[r.Dev] {
			continue
		}
		p, err := netip.ParsePrefix(r.Dst)
		if err != nil {
			a, err2 := netip.ParseAddr(r.Dst)
			if err2 != nil {
				continue
			}
			p = netip.PrefixFrom(a, 32)
		}
		if p.Overlaps(n.cidr) && abandoned(r.Dev) {
			n.log.Info("removing the bridge of a Manager that is gone", "bridge", r.Dev, "dir", linkAlias(r.Dev))
			(&network{bridge: r.Dev, log: n.log}).removeStale(ctx)
			removeStaleCgroups(r.Dev)
			removed[r.Dev] = true
			continue
		}
		if p.Overlaps(n.cidr) {
			return fmt.Errorf("machines: CIDR %s overlaps %s, already routed on this host (dev %s); choose another --machines-cidr", n.cidr, r.Dst, r.Dev)
		}
	}
	return nil
}

func (n *network) addFilters(ctx context.Context) error {
	in, fwd, nat := n.chain("in"), n.chain("fwd"), n.chain("nat")
	var b strings.Builder
	fmt.Fprintf(&b, "*filter\n:%s - [0:0]\n:%s - [0:0]\n", in, fwd)
	fmt.Fprintf(&b, "-A %s -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n-A %s -j DROP\n", in, in)
	fmt.Fprintf(&b, "-A %s -i %s -o %s -j ACCEPT\n", fwd, n.bridge, n.bridge)
	fmt.Fprintf(&b, "-A %s -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n", fwd)
	if n.egress {
		n.egressRules(&b)
	}
	fmt.Fprintf(&b, "-A %s -j DROP\n", fwd)
	fmt.Fprintf(&b, "-I INPUT 1 -i %s -j %s\n", n.bridge, in)
	fmt.Fprintf(&b, "-I FORWARD 1 -i %s -j %s\n-I FORWARD 1 -o %s -j %s\nCOMMIT\n", n.bridge, fwd, n.bridge, fwd)
	if n.egress {
		fmt.Fprintf(&b, "*nat\n:%s - [0:0]\n-A %s -s %s ! -o %s -j MASQUERADE\n-I POSTROUTING 1 -j %s\nCOMMIT\n", nat, nat, n.cidr, n.bridge, nat)
	}
	if _, err := command(ctx, b.String(), "iptables-restore", "-w", "5", "--noflush"); err != nil {
		return fmt.Errorf("machines: filter rules for %s: %w", n.bridge, err)
	}
	if n.egress {
		return n.enableForwarding()
	}
	return nil
}

// egressRules let machines reach the operator's ranges (EgressAllow) and every globally
// reachable address, and refuse the rest (delivery.NotGlobalIPv4: private, shared, link-local
// with the metadata address 169.254.169.254, and the other special-purpose ranges) with an ICMP
// "administratively prohibited", so a connection fails at once rather than timing out. The
// machines' own network is accepted before (machine to machine), and the host's own addresses
// are not forwarded at all (<bridge>-in).
func (n *network) egressRules(b *strings.Builder) {
	fwd := n.chain("fwd")
	for _, p := range n.allow {
		fmt.Fprintf(b, "-A %s -i %s -d %s -j ACCEPT\n", fwd, n.bridge, p)
	}
	for _, p := range delivery.NotGlobalIPv4() {
		fmt.Fprintf(b, "-A %s -i %s -d %s -j REJECT --reject-with icmp-admin-prohibited\n", fwd, n.bridge, p)
	}
	fmt.Fprintf(b, "-A %s -i %s -j ACCEPT\n", fwd, n.bridge)
}

// ipForward is the host-wide IPv4 forwarding switch. Egress needs it: replies come in on the
// host's uplink and are forwarded to the bridge, and forwarding is decided by the interface a
// packet comes in on, so the bridge's own switch would not do.
const ipForward = "/proc/sys/net/ipv4/ip_forward"

// forwardRecord is where the first Manager that turns IPv4 forwarding on for egress keeps what
// it was, host-wide (several Managers, in several processes, may have egress at once); the last
// of them to close puts it back and removes the record. /run is emptied at each host boot,
// when the switch is reset too.
var forwardRecord = "/run/reseller-machines/ip_forward-before-egress"

// enableForwarding turns IPv4 forwarding on for egress, recording what it was unless a record
// is there already (another Manager turned it on).
func (n *network) enableForwarding() error {
	was, err := os.ReadFile(ipForward)
	if err != nil {
		return fmt.Errorf("machines: read %s: %w", ipForward, err)
	}
	if strings.TrimSpace(string(was)) == "1" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(forwardRecord), 0o700); err != nil {
		return fmt.Errorf("machines: record IPv4 forwarding: %w", err)
	}
	if err := os.WriteFile(forwardRecord, was, 0o600); err != nil {
		return fmt.Errorf("machines: record IPv4 forwarding: %w", err)
	}
	if err := os.WriteFile(ipForward, []byte("1"), 0o644); err != nil {
		return fmt.Errorf("machines: enable IPv4 forwarding for egress: %w", err)
	}
	return nil
}

// restoreForwarding puts IPv4 forwarding back as it was before machines' egress turned it on,
// once no Manager's machines have egress any more (no NAT chain of one is left). A Manager
// killed before its Close leaves it on, until the next Manager with egress closes.
func (n *network) restoreForwarding(ctx context.Context) {
	if !n.egress {
		return
	}
	was, err := os.ReadFile(forwardRecord)
	if err != nil {
		return // it was on before, or another Manager has put it back
	}
	out, err := command(ctx, "", "iptables", "-w", "5", "-t", "nat", "-S")
	if err != nil {
		n.log.Warn("IPv4 forwarding left on: cannot tell whether other machines need it", "error", err)
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		chain, ok := strings.CutPrefix(line, "-N ")
		if ok && strings.HasPrefix(chain, bridgePrefix) && strings.HasSuffix(chain, "-nat") && chain != n.chain("nat") {
			n.log.Info("IPv4 forwarding left on: other machines have egress", "chain", chain)
			return
		}
	}
	if err := os.WriteFile(ipForward, was, 0o644); err != nil {
		n.log.Warn("IPv4 forwarding left on", "error", err)
		return
	}
	_ = os.Remove(forwardRecord)
}

// removeFilters deletes the jumps to this bridge's chains and the chains, ignoring what is
// already gone.
func (n *network) removeFilters(ctx context.Context) {
	in, fwd, nat := n.chain("in"), n.chain("fwd"), n.chain("nat")
	jumps := [][]string{
		{"-t", "filter", "-D", "INPUT", "-i", n.bridge, "-j", in},
		{"-t", "filter", "-D", "FORWARD", "-i", n.bridge, "-j", fwd},
		{"-t", "filter", "-D", "FORWARD", "-o", n.bridge, "-j", fwd},
		{"-t", "nat", "-D", "POSTROUTING", "-j", nat},
	}
	for _, j := range jumps {
		for i := 0; i < 10; i++ { // a crashed Manager may have added a jump more than once
			if _, err := command(ctx, "", "iptables", append([]string{"-w", "5"}, j...)...); err != nil {
				break
			}
		}
	}
	for _, c := range [][2]string{{"filter", in}, {"filter", fwd}, {"nat", nat}} {
		_, _ = command(ctx, "", "iptables", "-w", "5", "-t", c[0], "-F", c[1])
		_, _ = command(ctx, "", "iptables", "-w", "5", "-t", c[0], "-X", c[1])
	}
}

func (n *network) removeStale(ctx context.Context) {
	n.removeFilters(ctx)
	if err := n.removePortFilters(); err != nil {
		n.log.Warn("stale port filters left", "bridge", n.bridge, "error", err)
	}
	if linkExists(n.bridge) {
		n.log.Info("removing a stale bridge", "bridge", n.bridge)
		_ = ipBatch(ctx, "link del "+n.bridge+"\n")
	}
}

// tearDown removes the filters (the ports' too) and the bridge.
func (n *network) tearDown(ctx context.Context) error {
	n.removeFilters(ctx)
	n.restoreForwarding(ctx)
	ports := n.removePortFilters()
	if !linkExists(n.bridge) {
		return ports
	}
	if err := ipBatch(ctx, "link del "+n.bridge+"\n"); err != nil {
		return errors.Join(ports, fmt.Errorf("machines: delete bridge %s: %w", n.bridge, err))
	}
	return ports
}

// plug gives the machine whose PID 1 is pid a veth pair: the host's end on the bridge, guarded
// by the port filter before anything can cross it, the other moved into the machine's network
// namespace as eth0 (with machineMAC) with ip and a default route via the host.
func (n *network) plug(ctx context.Context, pid int, ref string, ip netip.Addr) error {
	host, peer := vethName(n.bridge, ref, "rv"), vethName(n.bridge, ref, "rp")
	n.unplug(ctx, ref) // a link left by a machine that died unseen
	mac := machineMAC(n.bridge, ref)
	if err := ipBatch(ctx, fmt.Sprintf("link add %s type veth peer name %s address %s\n", host, peer, mac)); err != nil {
		return fmt.Errorf("machine %s: veth: %w", ref, err)
	}
	disableIPv6(host)
	if err := n.guardPort(ref, mac, ip); err != nil {
		n.unplug(ctx, ref)
		return err
	}
	// The host forgets the address's link-layer address of an earlier boot (another veth, another
	// MAC), which it would otherwise keep using for a while: the machine, root in a user
	// namespace only, cannot announce its new one (arping needs CAP_NET_RAW in the host's).
	hostSide := fmt.Sprintf("link set %s master %s up\nlink set %s netns %d\nneigh flush to %s dev %s\n", host, n.bridge, peer, pid, ip, n.bridge)
	if err := ipBatch(ctx, hostSide); err != nil {
		n.unplug(ctx, ref)
		return fmt.Errorf("machine %s: veth: %w", ref, err)
	}
	inside := fmt.Sprintf("link set lo up\nlink set %s name eth0\n%slink set eth0 up\nroute replace default via %s dev eth0\n", peer, n.addressing(ip), n.host)
	if err := inNetns(pid, func() error { return ipBatch(ctx, inside) }); err != nil {
		n.unplug(ctx, ref)
		return fmt.Errorf("machine %s: address %s: %w", ref, ip, err)
	}
	n.log.Debug("machine plugged", "ref", ref, "veth", host, "ipv4", ip)
	return nil
}

func (n *network) addressing(ip netip.Addr) string {
	return fmt.Sprintf("addr add %s/%d dev eth0\n", ip, n.cidr.Bits())
}

// readdress moves ref's running machine to ip: its port filter takes the new address, its old
// address is removed (it then answers nothing) and the default route put back (removing the
// last address drops it).
func (n *network) readdress(ctx context.Context, pid int, ref string, ip netip.Addr) error {
	if err := n.guardPort(ref, machineMAC(n.bridge, ref), ip); err != nil {
		return err
	}
	// Flush first: deleting a primary address deletes its secondaries too (promote_secondaries
	// is off by default), so adding the new one before removing the old would lose it.
	batch := "addr flush dev eth0\n" + n.addressing(ip)
	batch += fmt.Sprintf("route replace default via %s dev eth0\n", n.host)
	return inNetns(pid, func() error { return ipBatch(ctx, batch) })
}

// unplug deletes the filter of ref's port and the host's end of its veth pair (the peer goes
// with it), if any.
func (n *network) unplug(ctx context.Context, ref string) {
	if err := n.unguardPort(ref); err != nil {
		n.log.Warn("port filter left", "ref", ref, "error", err)
	}
	host := vethName(n.bridge, ref, "rv")
	if linkExists(host) {
		_ = ipBatch(context.WithoutCancel(ctx), "link del "+host+"\n")
	}
}

// abandoned reports whether link is the bridge of a Manager that is gone: a machines bridge
// (its alias names the Manager's Dir) whose Dir has no manager.lock, or one no process holds. A
// Manager killed with its Dir removed (dev's temporary directory) leaves such a bridge, which
// would otherwise hold its range until the host restarts.
func abandoned(link string) bool {
	dir := linkAlias(link)
	if !strings.HasPrefix(link, bridgePrefix) || dir == "" || bridgeName(dir) != link {
		return false
	}
	f, err := os.Open(filepath.Join(dir, "manager.lock"))
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false // a live Manager holds it
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return true
}

// linkAlias is the alias of link, "" when it has none.
func linkAlias(link string) string {
	b, err := os.ReadFile("/sys/class/net/" + link + "/ifalias")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func linkExists(name string) bool {
	_, err := os.Stat("/sys/class/net/" + name)
	return err == nil
}

func disableIPv6(link string) {
	_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+link+"/disable_ipv6", []byte("1"), 0o644)
}

// ipBatch runs `ip -batch -` with batch on stdin.
func ipBatch(ctx context.Context, batch string) error {
	_, err := command(ctx, batch, "ip", "-batch", "-")
	return err
}

// commandTimeout bounds a host command (ip, iptables) whose ctx has no deadline of its own.
const commandTimeout = 30 * time.Second

// command runs name with args and stdin, bounded by ctx (by commandTimeout when ctx has no
// deadline); its error carries the command's output.
func command(ctx context.Context, stdin, name string, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, commandTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// inNetns runs fn on an OS thread that has joined the network namespace of pid, so the
// commands fn starts run there; the thread then goes back to the host's namespace and to the
// runtime. It is not discarded (a goroutine ending while locked ends its thread): a child that
// another part of the process forked from that thread with Pdeathsig (terraform-exec starts
// Terraform so, in tests that run resellerd in-process) would be killed with it. Only a thread
// that cannot go back is discarded.
func inNetns(pid int, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		host, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread() // nothing joined yet: the thread is as it was
			errc <- fmt.Errorf("the host's network namespace: %w", err)
			return
		}
		defer unix.Close(host)
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/net", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("the machine's network namespace: %w", err)
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("join the machine's network namespace: %w", err)
			return
		}
		err = fn()
		if unix.Setns(host, unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread() // back in the host's namespace: safe to reuse
		} // else: still locked, so the runtime discards the thread when this goroutine ends
		errc <- err
	}()
	return <-errc
}
