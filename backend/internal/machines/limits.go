package machines

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Limits are applied through cgroup v2 where it is writable and offers the memory and cpu
// controllers: each Manager gets a directory reseller-<bridge> at the root of the cgroup v2
// hierarchy, each machine a directory in it (its PID 1 is started inside it, with
// CLONE_INTO_CGROUP, so every process of the machine is counted), with memory.max and cpu.max.
// On hosts where cgroup v2 has no such controllers (a hybrid v1 host such as this project's CI)
// limits are recorded with the machine and not enforced; Manager.LimitsEnforced says which.

// cgroupRoot is where cgroup v2 is mounted with the memory and cpu controllers available and
// writable; "" when it is not. A variable so tests can point it at a directory of their own.
var cgroupRoot = findCgroup2

func findCgroup2() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// mountinfo: ... mount-point ... - fstype source options
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+1 >= len(fields) || fields[sep+1] != "cgroup2" || len(fields) < 5 {
			continue
		}
		if root := fields[4]; hasControllers(root) {
			return root
		}
	}
	return ""
}

// hasControllers says whether the cgroup v2 directory dir offers memory and cpu and can be
// written.
func hasControllers(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, c := range strings.Fields(string(data)) {
		have[c] = true
	}
	return have["memory"] && have["cpu"] && unix.Access(dir, unix.W_OK) == nil
}

// newCgroup makes this Manager's cgroup directory and enables memory and cpu for its children;
// "" (limits recorded only) where that is not possible.
func newCgroup(bridge string, log *slog.Logger) string {
	root := cgroupRoot()
	if root == "" {
		log.Info("machine limits are recorded, not enforced: cgroup v2 with the memory and cpu controllers is not writable here")
		return ""
	}
	dir := filepath.Join(root, "reseller-"+bridge)
	err := enableControllers(root)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = enableControllers(dir)
	}
	if err != nil {
		log.Info("machine limits are recorded, not enforced", "cgroup", dir, "error", err)
		return ""
	}
	return dir
}

func enableControllers(dir string) error {
	return os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory +cpu"), 0o644)
}

// applyLimits writes l into the cgroup directory dir: memory.max in bytes and cpu.max as
// CPUs periods of 100 ms per 100 ms; zero means no limit ("max").
func applyLimits(dir string, l Limits) error {
	mem, cpu := "max", "max 100000"
	if l.MemoryMB > 0 {
		mem = fmt.Sprint(int64(l.MemoryMB) << 20)
	}
	if l.CPUs > 0 {
		cpu = fmt.Sprintf("%d 100000", l.CPUs*100000)
	}
	if err := os.WriteFile(filepath.Join(dir, "memory.max"), []byte(mem), 0o644); err != nil {
		return fmt.Errorf("memory.max: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(cpu), 0o644); err != nil {
		return fmt.Errorf("cpu.max: %w", err)
	}
	return nil
}

func (m *Manager) cgroupOf(mc *machine) string {
	if m.cgroup == "" {
		return ""
	}
	return filepath.Join(m.cgroup, mc.ref)
}

// machineCgroup prepares mc's cgroup with its limits and opens it for CLONE_INTO_CGROUP; -1
// where limits are not enforced (or the cgroup cannot be made: the machine then boots without).
func (m *Manager) machineCgroup(mc *machine) (int, func()) {
	dir := m.cgroupOf(mc)
	if dir == "" {
		return -1, func() {}
	}
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = applyLimits(dir, mc.rec.Limits)
	}
	if err != nil {
		m.log.Warn("machine limits not applied", "ref", mc.ref, "error", err)
		return -1, func() {}
	}
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, func() {}
	}
	return fd, func() { unix.Close(fd) }
}

// LimitsEnforced says whether Limits are enforced on this host (cgroup v2 writable with memory
// and cpu), or only recorded.
func (m *Manager) LimitsEnforced() bool { return m.cgroup != "" }

// removeCgroup removes a cgroup directory and its children's (rmdir, each empty of processes
// once its machine is stopped).
func removeCgroup(dir string) {
	if dir == "" {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	_ = os.Remove(dir)
}
