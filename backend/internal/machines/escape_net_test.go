package machines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/nftables"
	"github.com/reseller/terraform-provider-reseller/backend/internal/testbuf"
)

// aMachineCannotBreakOutThroughTheNetwork: machine A's network namespace forges frames
// (testdata/netprobe run there by the host: root inside cannot open a raw socket, see inMachine;
// broadcast so that without a filter they reach every port and the
// host). Those that lie about A's MAC or IPv4 address reach neither machine B nor the host, the
// host's neighbour entry for B stays B's and B still answers the host; what A may send still
// arrives. With egress, A reaches an operator's allowed range but no address that is not globally
// reachable (served here by a network namespace of the test's own, routed from the host).
func aMachineCannotBreakOutThroughTheNetwork(t *testing.T) {
	requireRoot(t)
	probe := buildNetprobe(t)
	target := newTargetNetwork(t)
	m := newManagerAt(t, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.19.98.0/24"), Egress: true,
		EgressAllow: []netip.Prefix{netip.MustParsePrefix("10.213.47.0/24")}, Logger: testLogger(t)})
	ctx := context.Background()
	a, b := netip.MustParseAddr("198.19.98.10"), netip.MustParseAddr("198.19.98.11")
	for ref, ip := range map[string]netip.Addr{"vm-a": a, "vm-b": b} {
		if err := m.Create(ctx, Spec{Ref: ref, Hostname: ref, Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	mustSSH(t, b, "pw", "true") // the host learns B's MAC
	macA, macB := machineMAC(m.net.bridge, "vm-a").String(), machineMAC(m.net.bridge, "vm-b").String()
	if got := hostNeighbour(t, m.net.bridge, b); got != macB {
		t.Fatalf("before: the host's neighbour entry for B is %q, want B's MAC %s", got, macB)
	}

	frames := []struct {
		name    string
		flags   string // netprobe send's, but the marker
		arrives bool
	}{
		{"its own MAC and address", "-src-mac " + macA + " -src-ip " + a.String(), true},
		{"its own gratuitous ARP", "-arp -src-mac " + macA + " -src-ip " + a.String(), true},
		{"B's source MAC", "-src-mac " + macB + " -src-ip " + a.String(), false},
		{"B's IPv4 source", "-src-mac " + macA + " -src-ip " + b.String(), false},
		{"the host's IPv4 source", "-src-mac " + macA + " -src-ip " + m.net.host.String(), false},
		{"an ARP with B's MAC and address", "-arp -src-mac " + macB + " -src-ip " + b.String(), false},
		{"a gratuitous ARP for B's address", "-arp -src-mac " + macA + " -src-ip " + b.String(), false}, // last of the ARPs for B: the host's entry is its
		{"IPv6", "-ipv6 -src-mac " + macA + " -src-ip " + a.String(), false},
		{"a VLAN tag", "-vlan -src-mac " + macA + " -src-ip " + a.String(), false},
	}
	hostSaw, bSaw := listenOnHost(t, probe, m.net.bridge), listenIn(t, m, probe, "vm-b")
	for i, f := range frames {
		inMachine(t, m, "vm-a", probe, append([]string{"send", "-marker", fmt.Sprintf("probe-%d", i)}, strings.Fields(f.flags)...)...)
	}
	inMachine(t, m, "vm-a", probe, "send", "-src-mac", macA, "-src-ip", a.String(), "-marker", "probe-end")
	atHost, atB := hostSaw(), bSaw()
	for i, f := range frames {
		t.Run("frame with "+f.name, func(t *testing.T) {
			seen := fmt.Sprintf("seen probe-%d\n", i)
			if got := strings.Contains(atHost, seen); got != f.arrives {
				t.Errorf("reached the host: %v, want %v", got, f.arrives)
			}
			if got := strings.Contains(atB, seen); got != f.arrives {
				t.Errorf("reached B: %v, want %v", got, f.arrives)
			}
			if t.Failed() {
				t.Logf("the host saw:\n%sB saw:\n%s", atHost, atB)
			}
		})
	}
	t.Run("the host's neighbour entry for B", func(t *testing.T) {
		if got := hostNeighbour(t, m.net.bridge, b); got != macB {
			t.Fatalf("the host's neighbour entry for B is %q, want B's MAC %s (A's is %s)", got, macB, macA)
		}
	})
	t.Run("what the host sends to B does not reach A", func(t *testing.T) {
		aSaw := listenIn(t, m, probe, "vm-a")
		sendUDP(t, b, "probe-for-b")
		sendUDP(t, a, "probe-end")
		if got := aSaw(); strings.Contains(got, "seen probe-for-b\n") {
			t.Fatalf("A saw the host's datagram to B:\n%s", got)
		}
	})
	t.Run("B still answers the host", func(t *testing.T) {
		if got := mustSSH(t, b, "pw", "hostname"); got != "vm-b\n" {
			t.Fatalf("ssh B hostname: %q", got)
		}
	})

	egress := []struct {
		name    string
		addr    string
		reaches bool
	}{
		{"a private address (10.0.0.0/8)", "10.213.46.2", false},
		{"a private address (192.168.0.0/16)", "192.168.213.2", false},
		{"the metadata address 169.254.169.254", "169.254.169.254", false},
		{"an allowed range (EgressAllow)", target.allowed, true},
	}
	for _, e := range egress {
		t.Run("egress to "+e.name, func(t *testing.T) {
			out, _, err := m.Run(ctx, "vm-a", "timeout 5 wget -q -O - http://"+e.addr+":8080/ 2>&1", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := out == "reached\n"; got != e.reaches {
				t.Fatalf("wget %s from A: %q; reached %v, want %v", e.addr, out, got, e.reaches)
			}
		})
	}
}

// TestPortFilterFollowsTheMachine: a machine's port filter names its address through change_ip
// (running or stopped: SSH at the new address, whose replies the filter of the old one would
// drop), is there after a power cycle and a reboot, and is gone with the machine's port (power
// off), with the machine (delete) and with the Manager (Close).
func TestPortFilterFollowsTheMachine(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	m, err := New(ctx, Options{Dir: t.TempDir(), CIDR: netip.MustParsePrefix("198.19.99.0/24"), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	ip1, ip2, ip3 := netip.MustParseAddr("198.19.99.10"), netip.MustParseAddr("198.19.99.200"), netip.MustParseAddr("198.19.99.201")
	for _, ref := range []string{"vm-f", "vm-g"} {
		ip := ip1
		if ref == "vm-g" {
			ip = ip1.Next()
		}
		if err := m.Create(ctx, Spec{Ref: ref, Hostname: ref, Template: "t", IPv4: ip, Password: "pw"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	table := m.net.portTable(vethName(m.net.bridge, "vm-f", "rv")).Name
	wantTable := func(step string, want bool) {
		t.Helper()
		if got := hasTable(t, table); got != want {
			t.Fatalf("%s: port table %s there: %v, want %v", step, table, got, want)
		}
	}
	wantSSH := func(step string, ip netip.Addr) {
		t.Helper()
		if out, err := sshRun(ip, "pw", "hostname"); err != nil || out != "vm-f\n" {
			t.Fatalf("%s: ssh %s: %q, %v", step, ip, out, err)
		}
	}
	wantTable("created", true)
	steps := []struct {
		name string
		do   func() error
		ip   netip.Addr
	}{
		{"change_ip while running", func() error { return m.SetAddress(ctx, "vm-f", ip2) }, ip2},
		{"power cycle", func() error { return errors.Join(m.Stop(ctx, "vm-f"), m.Start(ctx, "vm-f")) }, ip2},
		{"reboot", func() error { return m.Reboot(ctx, "vm-f") }, ip2},
		{"change_ip while stopped", func() error {
			return errors.Join(m.Stop(ctx, "vm-f"), m.SetAddress(ctx, "vm-f", ip3), m.Start(ctx, "vm-f"))
		}, ip3},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		wantTable(s.name, true)
		wantSSH(s.name, s.ip)
	}
	if err := m.Stop(ctx, "vm-f"); err != nil {
		t.Fatal(err)
	}
	wantTable("power off", false)
	if err := m.Start(ctx, "vm-f"); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(ctx, "vm-f"); err != nil {
		t.Fatal(err)
	}
	wantTable("delete", false)
	prefix := m.net.portTablePrefix()
	if n := len(tablesWithPrefix(t, prefix)); n != 1 {
		t.Fatalf("%d port tables for %s with vm-g running, want 1", n, m.net.bridge)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := tablesWithPrefix(t, prefix); len(left) != 0 {
		t.Fatalf("port tables left after Close: %v", left)
	}
}

// TestEgressRefusesWhatIsNotGloballyReachable: with egress, the forwarding chain accepts
// EgressAllow's ranges, then rejects the ranges that are not globally reachable, before it
// accepts the rest; without egress none of it is there.
func TestEgressRefusesWhatIsNotGloballyReachable(t *testing.T) {
	for _, egress := range []bool{false, true} {
		n := newNetwork("/srv/m", Options{CIDR: netip.MustParsePrefix("198.18.0.0/16"), Egress: egress,
			EgressAllow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}, nil)
		var b strings.Builder
		if egress {
			n.egressRules(&b)
		}
		rules := b.String()
		fwd, br := n.chain("fwd"), n.bridge
		order := []string{
			"-A " + fwd + " -i " + br + " -d 10.1.0.0/16 -j ACCEPT\n",
			"-A " + fwd + " -i " + br + " -d 10.0.0.0/8 -j REJECT --reject-with icmp-admin-prohibited\n",
			"-A " + fwd + " -i " + br + " -d 169.254.0.0/16 -j REJECT --reject-with icmp-admin-prohibited\n",
			"-A " + fwd + " -i " + br + " -d 192.168.0.0/16 -j REJECT --reject-with icmp-admin-prohibited\n",
			"-A " + fwd + " -i " + br + " -j ACCEPT\n",
		}
		last := -1
		for _, r := range order {
			i := strings.Index(rules, r)
			if egress && i <= last {
				t.Fatalf("egress: %q missing or out of order in:\n%s", r, rules)
			}
			if !egress && i >= 0 {
				t.Fatalf("no egress: %q there", r)
			}
			last = i
		}
	}
}

// buildNetprobe builds testdata/netprobe, static, to run in machines' network namespaces.
func buildNetprobe(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "netprobe")
	cmd := exec.Command("go", "build", "-o", out, "./testdata/netprobe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build netprobe: %v\n%s", err, b)
	}
	return out
}

// listenOnHost starts netprobe listening on the host's link; the function it returns waits for
// the frame marked probe-end (frames on one path keep their order, so whatever was sent before
// it and arrives has arrived) and returns what netprobe saw.
func listenOnHost(t *testing.T, probe, link string) func() string {
	t.Helper()
	return listen(t, "on "+link, func(ready string) *exec.Cmd {
		return exec.Command(probe, "listen", "-i", link, "-ready", ready, "-end", "probe-end")
	})
}

// listen starts the netprobe listener command makes (told to write ready once it listens),
// waits until it listens, and returns the function that waits for its end and returns what it
// saw; where names it in failures.
func listen(t *testing.T, where string, command func(ready string) *exec.Cmd) func() string {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	var out testbuf.Buffer
	cmd := command(ready)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	waitFor(t, "netprobe listening "+where, func() bool {
		_, err := os.Stat(ready)
		return err == nil
	})
	return func() string {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("netprobe %s: %v: %s", where, err, out.String())
			}
		case <-time.After(bootWait): // netprobe gives up by itself after a minute without the end marker
			t.Fatalf("netprobe %s did not end: %s", where, out.String())
		}
		return out.String()
	}
}

// The frames a machine's root might forge are sent and watched with netprobe run by the host in
// the machine's network namespace (inMachine, listenIn): root inside a machine cannot open a raw
// socket at all (its user namespace does not own the network namespace), so this is the strongest
// tenant there could be, one that could, and what it shows is what the port filter lets through.

// inMachine runs netprobe with args in ref's network namespace and fails the test if it fails.
func inMachine(t *testing.T, m *Manager, ref, probe string, args ...string) {
	t.Helper()
	cmd := exec.Command("nsenter", append([]string{"-t", strconv.Itoa(initPID(t, m, ref)), "-n", probe}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("netprobe %v in %s: %v: %s", args, ref, err, out)
	}
}

// initPID is the host's PID of ref's init.
func initPID(t *testing.T, m *Manager, ref string) int {
	t.Helper()
	m.mu.Lock()
	mc := m.machines[ref]
	m.mu.Unlock()
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if mc.run == nil || !mc.run.alive() {
		t.Fatalf("machine %s is not running", ref)
	}
	return mc.run.pid
}

// listenIn starts netprobe listening on ref's eth0, in its network namespace; the function it
// returns waits for the frame marked probe-end, as listenOnHost's does.
func listenIn(t *testing.T, m *Manager, probe, ref string) func() string {
	t.Helper()
	pid := strconv.Itoa(initPID(t, m, ref))
	return listen(t, "in "+ref, func(ready string) *exec.Cmd {
		return exec.Command("nsenter", "-t", pid, "-n", probe, "listen", "-i", "eth0", "-ready", ready, "-end", "probe-end")
	})
}

// sendUDP sends one datagram carrying marker from the host to ip, port 9999.
func sendUDP(t *testing.T, ip netip.Addr, marker string) {
	t.Helper()
	c, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(ip, 9999)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(marker)); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, failing the test after eventWait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(eventWait)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("waiting for %s: gave up after %s", what, eventWait)
		}
	}
}

// hostNeighbour is the MAC the host's neighbour table holds for ip on link, "" when none.
func hostNeighbour(t *testing.T, link string, ip netip.Addr) string {
	t.Helper()
	out, err := exec.Command("ip", "-j", "neigh", "show", "to", ip.String(), "dev", link).Output()
	if err != nil {
		t.Fatalf("ip neigh: %v", err)
	}
	var entries []struct {
		LLAddr string `json:"lladdr"`
	}
	if err := json.Unmarshal(out, &entries); err != nil {
		t.Fatalf("ip neigh: %v: %s", err, out)
	}
	if len(entries) == 0 {
		return ""
	}
	return entries[0].LLAddr
}

// targetNetwork is a network namespace of the test's own, routed from the host through a veth,
// with an HTTP server on port 8080 of every address it holds: a private one on the link
// (10.213.46.2), 192.168.213.2, 169.254.169.254 and allowed, the one EgressAllow names.
type targetNetwork struct {
	allowed string
}

func newTargetNetwork(t *testing.T) targetNetwork {
	t.Helper()
	holder := exec.Command("unshare", "--net", "sleep", "600")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	waitForNetns(t, holder.Process.Pid)
	pid := strconv.Itoa(holder.Process.Pid)
	hostEnd, nsEnd := "rtgt"+pid, "rtgp"+pid
	ctx := context.Background()
	if err := ipBatch(ctx, "link add "+hostEnd+" type veth peer name "+nsEnd+"\n"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ipBatch(context.Background(), "link del "+hostEnd+"\n") }) // its routes go with it
	disableIPv6(hostEnd)
	routes := "link set " + nsEnd + " netns " + pid + "\naddr add 10.213.46.1/30 dev " + hostEnd + "\nlink set " + hostEnd + " up\n"
	for _, a := range []string{"10.213.47.2", "192.168.213.2", "169.254.169.254"} {
		routes += "route add " + a + "/32 via 10.213.46.2 dev " + hostEnd + "\n"
	}
	if err := ipBatch(ctx, routes); err != nil {
		t.Fatalf("routes to the test's own network namespace: %v", err)
	}
	var ln net.Listener
	err := inNetns(holder.Process.Pid, func() error {
		inside := "link set lo up\nlink set " + nsEnd + " up\naddr add 10.213.46.2/30 dev " + nsEnd + "\n" +
			"addr add 10.213.47.2/32 dev lo\naddr add 192.168.213.2/32 dev lo\naddr add 169.254.169.254/32 dev lo\n"
		if err := ipBatch(ctx, inside); err != nil {
			return err
		}
		var err error
		ln, err = net.Listen("tcp4", ":8080") // the socket stays in the namespace it was made in
		return err
	})
	if err != nil {
		t.Fatalf("the test's network namespace: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "reached\n") }),
		ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return targetNetwork{allowed: "10.213.47.2"}
}

// hasTable says whether a netdev table named name exists.
func hasTable(t *testing.T, name string) bool {
	t.Helper()
	for _, n := range tablesWithPrefix(t, name) {
		if n == name {
			return true
		}
	}
	return false
}

// tablesWithPrefix lists the netdev tables whose name starts with prefix.
func tablesWithPrefix(t *testing.T, prefix string) []string {
	t.Helper()
	c, err := nftables.New()
	if err != nil {
		t.Fatal(err)
	}
	tables, err := c.ListTablesOfFamily(nftables.TableFamilyNetdev)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		if strings.HasPrefix(tb.Name, prefix) {
			names = append(names, tb.Name)
		}
	}
	return names
}
