package machines

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Traffic is one read of a machine's network counters, on the host's end of its veth: Link is
// the interface's ifindex, which a new interface (every boot plugs one) never shares with the
// one before it on this host, and Bytes its received plus transmitted bytes, which start at 0
// with each new interface. The sandbox adds up the differences between reads (its traffic.go).
type Traffic struct {
	Link  int
	Bytes int64
}

// Traffic reads ref's counters; ok is false when the machine has no interface (it is off, or
// not on this host). It takes no lock: a read that races an unplug finds no interface.
func (m *Manager) Traffic(ref string) (t Traffic, ok bool, err error) {
	dir := filepath.Join("/sys/class/net", vethName(m.net.bridge, ref, "rv"))
	link, err := readCounter(filepath.Join(dir, "ifindex"))
	if os.IsNotExist(err) {
		return Traffic{}, false, nil
	}
	if err != nil {
		return Traffic{}, false, fmt.Errorf("machine %s: traffic: %w", ref, err)
	}
	rx, err1 := readCounter(filepath.Join(dir, "statistics", "rx_bytes"))
	tx, err2 := readCounter(filepath.Join(dir, "statistics", "tx_bytes"))
	switch {
	case os.IsNotExist(err1) || os.IsNotExist(err2):
		return Traffic{}, false, nil // unplugged between the reads
	case err1 != nil || err2 != nil:
		return Traffic{}, false, fmt.Errorf("machine %s: traffic: %w", ref, errors.Join(err1, err2))
	}
	return Traffic{Link: int(link), Bytes: rx + tx}, true, nil
}

// readCounter reads one decimal number from a sysfs file.
func readCounter(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}
