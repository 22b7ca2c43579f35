package machines

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// A machine's port is the host's end of its veth. Root inside a machine has CAP_NET_RAW and
// could forge frames; the port filter keeps what it sends to what it is, so it cannot take
// another machine's traffic (a gratuitous ARP moving the host's neighbour entry, a stolen MAC
// moving the bridge's forwarding entry) nor pass for another sender:
//
//	ingress (frames from the machine)  accepted only with its own source MAC and either IPv4
//	                                   from its own address or ARP (Ethernet/IPv4) whose sender
//	                                   MAC and address are its own; everything else (IPv6,
//	                                   VLAN tags, other ethertypes) dropped
//	egress (frames to the machine)     only those addressed to its MAC or broadcast, so a
//	                                   flood of unknown unicast never shows it others' traffic
//
// Each port has an nftables table of its own (family netdev, hooks bound to the port's device,
// so a frame meets only its own port's rules) named after the bridge and the port: replacing it
// is one atomic transaction (change_ip), removing it removes everything (unplug), and the
// tables a crashed Manager left are found by their prefix.

// portTablePrefix starts the name of every port table of the network's bridge.
func (n *network) portTablePrefix() string { return n.bridge + "-" }

// portTable is the nftables table of the port host.
func (n *network) portTable(host string) *nftables.Table {
	return &nftables.Table{Family: nftables.TableFamilyNetdev, Name: n.portTablePrefix() + host}
}

// machineMAC is the MAC address of ref's eth0, set at plug: derived from the bridge and ref, so
// the port filter can name it before the machine runs and it stays the same across change_ip and
// reboots. Unicast and locally administered (the first byte's low bits 10).
func machineMAC(bridge, ref string) net.HardwareAddr {
	sum := sha256.Sum256([]byte("mac/" + bridge + "/" + ref))
	mac := net.HardwareAddr(sum[:6])
	mac[0] = mac[0]&^0x01 | 0x02
	return mac
}

// guardPort installs, or atomically replaces, the filter of ref's port (its veth's host end,
// which must exist) for the machine at mac and ip.
func (n *network) guardPort(ref string, mac net.HardwareAddr, ip netip.Addr) error {
	host := vethName(n.bridge, ref, "rv")
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("machine %s: port filter: %w", ref, err)
	}
	t := n.portTable(host)
	c.AddTable(t) // create it if missing, so that the delete below never fails
	c.DelTable(t)
	c.AddTable(t)
	drop := nftables.ChainPolicyDrop
	in := c.AddChain(&nftables.Chain{Name: "from-machine", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookIngress, Priority: nftables.ChainPriorityFilter, Device: host, Policy: &drop})
	out := c.AddChain(&nftables.Chain{Name: "to-machine", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookEgress, Priority: nftables.ChainPriorityFilter, Device: host, Policy: &drop})
	for _, r := range fromMachine(mac, ip) {
		c.AddRule(&nftables.Rule{Table: t, Chain: in, Exprs: r})
	}
	for _, r := range toMachine(mac) {
		c.AddRule(&nftables.Rule{Table: t, Chain: out, Exprs: r})
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("machine %s: port filter on %s (nftables netdev ingress and egress hooks): %w", ref, host, err)
	}
	return nil
}

// Offsets of the fields the port filter reads: in the Ethernet header (link layer), and in an
// ARP packet for Ethernet and IPv4 (network header).
const (
	ethDst, ethSrc, ethType = 0, 6, 12
	ipSrc                   = 12
	arpFormat               = 0 // hardware type, protocol type, their lengths: 6 bytes
	arpSenderMAC            = 8
	arpSenderIP             = 14
)

var (
	etherIPv4      = []byte{0x08, 0x00}
	etherARP       = []byte{0x08, 0x06}
	arpEthernetIP4 = []byte{0x00, 0x01, 0x08, 0x00, 6, 4}
	broadcastMAC   = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

// fromMachine are the ingress rules: each accepts one kind of frame the machine may send, and
// the chain's policy drops the rest.
func fromMachine(mac net.HardwareAddr, ip netip.Addr) [][]expr.Any {
	a := ip.As4()
	ipv4 := concat(
		match(expr.PayloadBaseLLHeader, ethSrc, mac),
		match(expr.PayloadBaseLLHeader, ethType, etherIPv4),
		match(expr.PayloadBaseNetworkHeader, ipSrc, a[:]),
		accept(),
	)
	arp := concat(
		match(expr.PayloadBaseLLHeader, ethSrc, mac),
		match(expr.PayloadBaseLLHeader, ethType, etherARP),
		match(expr.PayloadBaseNetworkHeader, arpFormat, arpEthernetIP4),
		match(expr.PayloadBaseNetworkHeader, arpSenderMAC, mac),
		match(expr.PayloadBaseNetworkHeader, arpSenderIP, a[:]),
		accept(),
	)
	return [][]expr.Any{ipv4, arp}
}

// toMachine are the egress rules: frames to the machine's MAC, and broadcasts (ARP requests).
func toMachine(mac net.HardwareAddr) [][]expr.Any {
	return [][]expr.Any{
		concat(match(expr.PayloadBaseLLHeader, ethDst, mac), accept()),
		concat(match(expr.PayloadBaseLLHeader, ethDst, broadcastMAC), accept()),
	}
}

// match loads len(want) bytes at offset of base and compares them with want.
func match(base expr.PayloadBase, offset uint32, want []byte) []expr.Any {
	return []expr.Any{
		&expr.Payload{DestRegister: 1, Base: base, Offset: offset, Len: uint32(len(want))},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: append([]byte(nil), want...)},
	}
}

func accept() []expr.Any { return []expr.Any{&expr.Verdict{Kind: expr.VerdictAccept}} }

func concat(parts ...[]expr.Any) []expr.Any {
	var all []expr.Any
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// unguardPort removes the filter of ref's port, if any.
func (n *network) unguardPort(ref string) error {
	return n.deletePortTables(func(name string) bool { return name == n.portTable(vethName(n.bridge, ref, "rv")).Name })
}

// removePortFilters removes every port table of the bridge: the Manager's at Close, or those a
// crashed one left.
func (n *network) removePortFilters() error {
	return n.deletePortTables(func(name string) bool { return strings.HasPrefix(name, n.portTablePrefix()) })
}

// deletePortTables deletes the netdev tables whose name pick says, in one transaction.
func (n *network) deletePortTables(pick func(name string) bool) error {
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("machines: port filters: %w", err)
	}
	tables, err := c.ListTablesOfFamily(nftables.TableFamilyNetdev)
	if err != nil {
		return fmt.Errorf("machines: list port filters: %w", err)
	}
	found := false
	for _, t := range tables {
		if pick(t.Name) {
			c.DelTable(t)
			found = true
		}
	}
	if !found {
		return nil
	}
	if err := c.Flush(); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("machines: remove port filters of %s: %w", n.bridge, err)
	}
	return nil
}

// probePortFilters checks that the kernel takes the port filters (nf_tables with netdev ingress
// and egress hooks, Linux 5.16 or later), on the bridge with a table that accepts everything and
// is removed at once, so New fails naming them rather than the first machine's boot.
func (n *network) probePortFilters() error {
	c, err := nftables.New()
	if err == nil {
		t := n.portTable("probe")
		c.AddTable(t)
		c.DelTable(t)
		c.AddTable(t)
		acceptAll := nftables.ChainPolicyAccept
		for _, h := range []*nftables.ChainHook{nftables.ChainHookIngress, nftables.ChainHookEgress} {
			c.AddChain(&nftables.Chain{Name: fmt.Sprint("hook", *h), Table: t, Type: nftables.ChainTypeFilter,
				Hooknum: h, Priority: nftables.ChainPriorityFilter, Device: n.bridge, Policy: &acceptAll})
		}
		c.DelTable(t)
		err = c.Flush()
	}
	if err != nil {
		return fmt.Errorf("machines: the kernel does not take the per-port filters (nftables netdev ingress and egress hooks: Linux 5.16 or later with nf_tables and CONFIG_NETFILTER_EGRESS): %w", err)
	}
	return nil
}
