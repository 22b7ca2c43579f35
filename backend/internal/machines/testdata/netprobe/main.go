// Command netprobe is what escape_net_test.go runs inside a machine (built static, copied in):
// it sends one hand-made Ethernet frame, forging what a tenant with CAP_NET_RAW could forge, and
// listens for such frames on an interface, saying which markers it saw.
//
//	netprobe send -i eth0 -src-mac MAC -src-ip IP -marker M [-arp | -ipv6 | -vlan]
//	netprobe listen -i IFACE -ready FILE -end MARKER   # prints "seen M" per marked frame
//
// Every frame goes to the broadcast MAC, so without a filter it reaches every port of the bridge
// and the host. A marker is "probe-" and letters, digits or '-'; an ARP frame carries it in its
// padding.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: netprobe send|listen ..."))
	}
	var err error
	switch os.Args[1] {
	case "send":
		err = send(os.Args[2:])
	case "listen":
		err = listen(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "netprobe:", err)
	os.Exit(1)
}

func send(args []string) error {
	fs := flag.NewFlagSet("send", flag.ExitOnError)
	iface := fs.String("i", "eth0", "interface")
	srcMAC := fs.String("src-mac", "", "source MAC (also the ARP sender's)")
	srcIP := fs.String("src-ip", "", "IPv4 source (also the ARP sender's)")
	marker := fs.String("marker", "", "marker carried by the frame")
	arp := fs.Bool("arp", false, "a gratuitous ARP request instead of a UDP datagram")
	ipv6 := fs.Bool("ipv6", false, "an IPv6 packet (link-local to all nodes, no next header) instead of IPv4")
	vlan := fs.Bool("vlan", false, "tag the UDP datagram with 802.1Q VLAN 7")
	_ = fs.Parse(args)
	mac, err := net.ParseMAC(*srcMAC)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(*srcIP)
	if err != nil {
		return err
	}
	var frame []byte
	switch {
	case *arp:
		frame = arpFrame(mac, ip, *marker)
	case *ipv6:
		frame = ipv6Frame(mac, *marker)
	default:
		frame = udpFrame(mac, ip, *marker, *vlan)
	}
	fd, ifindex, err := packetSocket(*iface)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	to := &syscall.SockaddrLinklayer{Ifindex: ifindex, Halen: 6}
	copy(to.Addr[:], frame[:6])
	return syscall.Sendto(fd, frame, 0, to)
}

var broadcast = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

func ethernet(src net.HardwareAddr, etherType uint16) []byte {
	b := append(append([]byte{}, broadcast...), src...)
	return binary.BigEndian.AppendUint16(b, etherType)
}

func arpFrame(mac net.HardwareAddr, ip netip.Addr, marker string) []byte {
	a := ip.As4()
	b := ethernet(mac, 0x0806)
	b = append(b, 0, 1, 8, 0, 6, 4, 0, 1) // Ethernet, IPv4, request
	b = append(b, mac...)
	b = append(b, a[:]...)
	b = append(b, 0, 0, 0, 0, 0, 0)
	b = append(b, a[:]...) // gratuitous: the target is the sender's own address
	return append(b, marker...)
}

// ipv6Frame is a well-formed IPv6 packet (a bridge with br_netfilter drops a malformed one
// itself) from fe80::1 to ff02::1 whose payload is the marker.
func ipv6Frame(mac net.HardwareAddr, marker string) []byte {
	b := ethernet(mac, 0x86dd)
	b = append(b, 0x60, 0, 0, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(len(marker)))
	b = append(b, 59, 1) // no next header, hop limit 1
	src, dst := netip.MustParseAddr("fe80::1").As16(), netip.MustParseAddr("ff02::1").As16()
	b = append(append(b, src[:]...), dst[:]...)
	return append(b, marker...)
}

func udpFrame(mac net.HardwareAddr, src netip.Addr, marker string, vlan bool) []byte {
	var b []byte
	if vlan {
		b = ethernet(mac, 0x8100)
		b = append(b, 0, 7, 0x08, 0x00)
	} else {
		b = ethernet(mac, 0x0800)
	}
	s := src.As4()
	total := 20 + 8 + len(marker)
	ip := []byte{0x45, 0, byte(total >> 8), byte(total), 0, 0, 0, 0, 64, 17, 0, 0}
	ip = append(ip, s[:]...)
	ip = append(ip, 255, 255, 255, 255)
	binary.BigEndian.PutUint16(ip[10:], checksum(ip))
	udp := binary.BigEndian.AppendUint16(nil, 9999)
	udp = binary.BigEndian.AppendUint16(udp, 9999)
	udp = binary.BigEndian.AppendUint16(udp, uint16(8+len(marker)))
	udp = append(udp, 0, 0)
	return append(append(append(b, ip...), udp...), marker...)
}

func checksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// listen prints "seen M" for each frame carrying a marker M, until the frame with the end
// marker (printed too, as "seen END") or a minute (a bound for a loaded host, not a speed).
func listen(args []string) error {
	fs := flag.NewFlagSet("listen", flag.ExitOnError)
	iface := fs.String("i", "eth0", "interface")
	ready := fs.String("ready", "", "file written once listening")
	end := fs.String("end", "", "marker after which to stop")
	_ = fs.Parse(args)
	fd, ifindex, err := packetSocket(*iface)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrLinklayer{Protocol: htons(syscall.ETH_P_ALL), Ifindex: ifindex}); err != nil {
		return err
	}
	tv := syscall.Timeval{Sec: 1}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return err
	}
	if err := os.WriteFile(*ready, []byte("ready\n"), 0o644); err != nil {
		return err
	}
	buf := make([]byte, 65536)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			continue // the receive timeout: look at the deadline again
		}
		m := markerIn(buf[:n])
		if m == "" {
			continue
		}
		fmt.Println("seen", m)
		if m == *end {
			return nil
		}
	}
	return errors.New("no end marker in a minute")
}

func markerIn(frame []byte) string {
	i := bytes.Index(frame, []byte("probe-"))
	if i < 0 {
		return ""
	}
	j := i
	for j < len(frame) && (frame[j] == '-' || frame[j] >= '0' && frame[j] <= '9' || frame[j] >= 'a' && frame[j] <= 'z' || frame[j] >= 'A' && frame[j] <= 'Z') {
		j++
	}
	return string(frame[i:j])
}

func packetSocket(iface string) (fd, ifindex int, err error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return -1, 0, err
	}
	fd, err = syscall.Socket(syscall.AF_PACKET, syscall.SOCK_RAW, int(htons(syscall.ETH_P_ALL)))
	if err != nil {
		return -1, 0, err
	}
	return fd, ifi.Index, nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }
