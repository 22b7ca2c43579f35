package machines

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A machine's limits are its plan's memory (no swap beyond it), its plan's cores as a CPU
// quota, and Options.PidsMax processes, enforced through the machine's cgroups (cgroups.go) on
// cgroup v1 and v2 alike. Its PID 1 is placed in them before it starts anything, so every
// process of the machine is counted; a machine past its memory meets the OOM killer of its own
// cgroup, which picks among its processes only. Where a controller is missing, limits are
// recorded with the machine and not enforced; Manager.LimitsEnforced says which.

// DefaultPidsMax is a machine's process limit unless Options.PidsMax says otherwise.
const DefaultPidsMax = 4096

// The bounds of Options.PidsMax. The cap counts threads too, and an idle machine holds about 15
// (init's and the agent's Go runtimes); a login and a few commands need some more. The kernel
// counts no more than 2^22.
const (
	MinPidsMax = 32
	MaxPidsMax = 1 << 22
)

// cpuPeriod is the CFS period, in microseconds, of a machine's CPU quota: its cores times it.
const cpuPeriod = 100000

// newCgroups makes this Manager's cgroups; nil (limits recorded only) where that is not
// possible, with the reason logged.
func newCgroups(bridge string, log *slog.Logger) []cgroupDir {
	own, err := findOwnCgroups()
	if err == nil {
		var dirs []cgroupDir
		if dirs, err = makeCgroups(own, bridge); err == nil {
			return dirs
		}
	}
	log.Warn("machine limits are recorded, not enforced", "error", err)
	return nil
}

// applyLimits writes l, and pidsMax processes, into the cgroup directory dir of each of the
// controllers.
func applyLimits(dir string, v2 bool, controllers []string, l Limits, pidsMax int) error {
	for _, c := range controllers {
		var err error
		switch {
		case c == "memory" && v2:
			err = setMemoryV2(dir, l.MemoryMB)
		case c == "memory":
			err = setMemoryV1(dir, l.MemoryMB)
		case c == "cpu" && v2:
			err = writeCgroup(dir, "cpu.max", cpuMax(l.CPUs))
		case c == "cpu":
			err = setCPUV1(dir, l.CPUs)
		case c == "pids":
			err = writeCgroup(dir, "pids.max", strconv.Itoa(pidsMax))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// setMemoryV2 writes memory.max, and memory.swap.max 0 where the kernel accounts swap.
func setMemoryV2(dir string, mb int) error {
	limit := "max"
	if mb > 0 {
		limit = strconv.FormatInt(int64(mb)<<20, 10)
	}
	if err := writeCgroup(dir, "memory.max", limit); err != nil {
		return err
	}
	if exists(filepath.Join(dir, "memory.swap.max")) {
		return writeCgroup(dir, "memory.swap.max", "0")
	}
	return nil
}

// setMemoryV1 writes memory.limit_in_bytes and, where the kernel accounts swap, the same into
// memory.memsw.limit_in_bytes (memory plus swap: no swap). The kernel keeps memsw at least the
// memory limit, so a raise writes memsw first and a cut writes it last.
func setMemoryV1(dir string, mb int) error {
	limit := int64(-1)
	if mb > 0 {
		limit = int64(mb) << 20
	}
	value := strconv.FormatInt(limit, 10)
	files := []string{"memory.limit_in_bytes"}
	if exists(filepath.Join(dir, "memory.memsw.limit_in_bytes")) {
		files = append(files, "memory.memsw.limit_in_bytes")
		if limit < 0 || limit >= currentV1(dir, "memory.limit_in_bytes") {
			files[0], files[1] = files[1], files[0]
		}
	}
	for _, f := range files {
		if err := writeCgroup(dir, f, value); err != nil {
			return err
		}
	}
	return nil
}

// currentV1 reads a v1 limit in bytes; unreadable counts as unlimited.
func currentV1(dir, file string) int64 {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 1<<63 - 1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 1<<63 - 1
	}
	return n
}

// setCPUV1 writes the CFS period and a quota of cpus periods per period (-1: none).
func setCPUV1(dir string, cpus int) error {
	quota := "-1"
	if cpus > 0 {
		quota = strconv.Itoa(cpus * cpuPeriod)
	}
	if err := writeCgroup(dir, "cpu.cfs_period_us", strconv.Itoa(cpuPeriod)); err != nil {
		return err
	}
	return writeCgroup(dir, "cpu.cfs_quota_us", quota)
}

// cpuMax is cgroup v2's cpu.max for cpus cores: a quota and the period.
func cpuMax(cpus int) string {
	if cpus <= 0 {
		return fmt.Sprintf("max %d", cpuPeriod)
	}
	return fmt.Sprintf("%d %d", cpus*cpuPeriod, cpuPeriod)
}

// writeCgroup writes value into one of a cgroup's files, naming the file on failure.
func writeCgroup(dir, file, value string) error {
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("cgroup: write %s to %s: %w", value, path, err)
	}
	return nil
}

// LimitsEnforced says whether Limits are enforced on this host (the memory, cpu and pids
// controllers available to the cgroup resellerd runs in, on cgroup v1 or v2), or only recorded.
func (m *Manager) LimitsEnforced() bool { return m.cgroups != nil }

// makeMachineCgroups makes mc's cgroup in every hierarchy with its limits; nothing where
// limits are not enforced.
func (m *Manager) makeMachineCgroups(mc *machine) error {
	for _, d := range m.cgroups {
		if err := os.Mkdir(d.machineDir(mc.ref), 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("machine %s: cgroup: %w", mc.ref, err)
		}
	}
	return m.applyMachineLimits(mc)
}

// applyMachineLimits writes mc's recorded limits into its cgroups.
func (m *Manager) applyMachineLimits(mc *machine) error {
	for _, d := range m.cgroups {
		if err := applyLimits(d.machineDir(mc.ref), d.v2, d.controllers, mc.rec.Limits, m.o.PidsMax); err != nil {
			return fmt.Errorf("machine %s: limits: %w", mc.ref, err)
		}
	}
	return nil
}
