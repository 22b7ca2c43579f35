package main

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// A hung SSH attempt is looked at before its connection is closed, from both ends, in the
// kernel's own tables (/proc/PID/net/tcp shows the sockets of PID's network namespace): the
// host's socket, the machine's socket of the same connection, and the machine's listener on
// port 22, whose receive queue is its accept backlog. Their states and queues tell a network
// that lost the packets (data unacknowledged, retransmits) from a server that has the bytes
// and does not answer (its receive queue full, or the connection never accepted).

// tcpStates are the kernel's TCP state numbers (include/net/tcp_states.h).
var tcpStates = map[string]string{"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1",
	"05": "FIN_WAIT2", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"}

// procTCPAddr is addr ("IP:port", IPv4) as /proc/net/tcp writes it: the address's bytes in
// host (little-endian) order and the port, in upper-case hex.
func procTCPAddr(addr string) (string, bool) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Is4() {
		return "", false
	}
	a := ap.Addr().As4()
	return fmt.Sprintf("%02X%02X%02X%02X:%04X", a[3], a[2], a[1], a[0], ap.Port()), true
}

// tcpLine is one socket of /proc/PID/net/tcp, said in words.
func tcpLine(f []string) string {
	queues := strings.SplitN(f[4], ":", 2)
	tx, _ := strconv.ParseInt(queues[0], 16, 64)
	rx, _ := strconv.ParseInt(queues[1], 16, 64)
	return fmt.Sprintf("%s send-q %d recv-q %d timer %s retransmits %s", tcpStates[f[3]], tx, rx, f[5], f[6])
}

// diagnoseHang describes the connection from local (the bench's end) to the machines of serve
// (servePID): the host's socket, and in the machine that has the other end, that socket and
// the listener on port 22.
func diagnoseHang(servePID int, local string) string {
	key, ok := procTCPAddr(local)
	if !ok {
		return "(no IPv4 local address)"
	}
	var out []string
	for _, f := range readTCP("/proc/self/net/tcp") {
		if f[1] == key {
			out = append(out, "host: "+tcpLine(f))
		}
	}
	all, err := processes()
	if err != nil {
		return strings.Join(out, "; ")
	}
	for _, p := range all {
		if p.ppid != servePID {
			continue
		}
		lines := readTCP(fmt.Sprintf("/proc/%d/net/tcp", p.pid))
		found := false
		for _, f := range lines {
			if f[2] == key {
				out = append(out, fmt.Sprintf("machine (init %d): %s", p.pid, tcpLine(f)))
				found = true
			}
		}
		if !found {
			continue
		}
		for _, f := range lines {
			if f[3] == "0A" && strings.HasSuffix(f[1], ":0016") {
				out = append(out, "its port 22 listener: "+tcpLine(f)+" (recv-q: connections waiting for accept)")
			}
		}
	}
	if len(out) == 0 {
		return "no socket of the connection found on either end"
	}
	return strings.Join(out, "; ")
}

// readTCP returns the fields of each socket line of a /proc/net/tcp file.
func readTCP(path string) [][]string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out [][]string
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 7 {
			continue
		}
		out = append(out, f)
	}
	return out
}
