package machines

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkBootToSSH times Create to the first successful SSH login, and reports the memory
// (PSS, from /proc/PID/smaps_rollup) of an idle machine: its init and agent after a login.
//
//	go test ./backend/internal/machines/ -run '^$' -bench BootToSSH -benchtime 20x
func BenchmarkBootToSSH(b *testing.B) {
	m := newManager(b, "198.18.199.0/24")
	ctx := context.Background()
	var pssKiB int64
	for i := 0; i < b.N; i++ {
		ref := fmt.Sprintf("bench-%d", i)
		ip := netip.AddrFrom4([4]byte{198, 18, 199, byte(10 + i%200)})
		b.StartTimer()
		if err := m.Create(ctx, Spec{Ref: ref, Hostname: ref, Template: "bench", IPv4: ip, Password: "pw"}, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := sshRun(ip, "pw", "true"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		time.Sleep(100 * time.Millisecond) // the login's session ends; the machine idles
		pssKiB += machinePSS(b, m, ref)
		if err := m.Delete(ctx, ref); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(pssKiB)/float64(b.N), "PSS-KiB/machine")
}

// machinePSS sums the PSS of every process of ref's machine (PID 1 and its descendants).
func machinePSS(b *testing.B, m *Manager, ref string) int64 {
	m.mu.Lock()
	mc := m.machines[ref]
	m.mu.Unlock()
	mc.mu.Lock()
	pid := mc.run.pid
	mc.mu.Unlock()
	var total int64
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		total += pss(p)
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", p, p))
		for _, f := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(f); err == nil {
				queue = append(queue, c)
			}
		}
	}
	return total
}

// pss is the Pss line of /proc/PID/smaps_rollup in KiB (0 when unreadable).
func pss(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}
