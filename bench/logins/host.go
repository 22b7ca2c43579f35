package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
const clockTicks = 100

// proc is what the bench reads of one process in /proc.
type proc struct {
	pid, ppid int
	pidNS     string // the target of /proc/<pid>/ns/pid, e.g. "pid:[4026531836]"
	ticks     int64  // utime + stime
	exe       string // the target of /proc/<pid>/exe ("" when unreadable: a kernel thread)
}

// processes lists every process it can read; one that ends while it reads is skipped.
func processes() ([]proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func readProc(pid int) (proc, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return proc{}, false
	}
	ppid, ticks, err := parseStat(stat)
	if err != nil {
		return proc{}, false
	}
	ns, err := os.Readlink(dir + "/ns/pid")
	if err != nil {
		return proc{}, false
	}
	exe, _ := os.Readlink(dir + "/exe")
	return proc{pid: pid, ppid: ppid, pidNS: ns, ticks: ticks, exe: exe}, true
}

// parseStat reads the parent's PID and utime + stime from the text of /proc/<pid>/stat.
func parseStat(b []byte) (ppid int, ticks int64, err error) {
	i := bytes.LastIndexByte(b, ')') // the command name, in parentheses, may hold anything
	if i < 0 || i+2 > len(b) {
		return 0, 0, errors.New("stat: no command name")
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 13 {
		return 0, 0, errors.New("stat: too few fields")
	}
	ppid, err1 := strconv.Atoi(f[1])
	utime, err2 := strconv.ParseInt(f[11], 10, 64)
	stime, err3 := strconv.ParseInt(f[12], 10, 64)
	return ppid, utime + stime, errors.Join(err1, err2, err3)
}

// hostPidNS is this program's PID namespace: the host's.
func hostPidNS() (string, error) { return os.Readlink("/proc/self/ns/pid") }

// machineProcs groups by PID namespace the processes of serve's machines: every process in a
// PID namespace other than the host's whose ancestry reaches serve (each machine's PID 1 is a
// child of serve), or whose namespace is one of known (machines seen earlier, for the checks
// after delete, when an orphan's ancestry no longer reaches serve).
func machineProcs(all []proc, servePID int, hostNS string, known map[string]bool) map[string][]proc {
	parent := make(map[int]int, len(all))
	for _, p := range all {
		parent[p.pid] = p.ppid
	}
	out := map[string][]proc{}
	for _, p := range all {
		if p.pidNS == hostNS {
			continue
		}
		if known[p.pidNS] || descends(p.pid, servePID, parent) {
			out[p.pidNS] = append(out[p.pidNS], p)
		}
	}
	return out
}

// descends says whether pid's ancestry reaches ancestor.
func descends(pid, ancestor int, parent map[int]int) bool {
	for seen := 0; pid > 1 && seen < 4096; seen++ {
		if pid = parent[pid]; pid == ancestor {
			return true
		}
	}
	return false
}

// rollup is a process's memory from /proc/<pid>/smaps_rollup, in kB. PSS counts its private
// pages and its share of the pages it shares (the resellerd binary's text is shared by serve
// and every machine's agent), so summing it over processes counts every page once; USS is its
// private pages alone, what its end would give back.
type rollup struct {
	pss, pssAnon, pssFile, uss int64
	anon                       int64 // anonymous pages (a child that execs shares none of its parent's)
}

func (r rollup) plus(o rollup) rollup {
	return rollup{pss: r.pss + o.pss, pssAnon: r.pssAnon + o.pssAnon, pssFile: r.pssFile + o.pssFile, uss: r.uss + o.uss,
		anon: r.anon + o.anon}
}

func readRollup(pid int) (rollup, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return rollup{}, err
	}
	return parseRollup(b)
}

func parseRollup(b []byte) (rollup, error) {
	var r rollup
	var errs [6]error
	r.pss, errs[0] = fieldKB(b, "Pss:")
	r.pssAnon, errs[1] = fieldKB(b, "Pss_Anon:")
	r.pssFile, errs[2] = fieldKB(b, "Pss_File:")
	clean, e3 := fieldKB(b, "Private_Clean:")
	dirty, e4 := fieldKB(b, "Private_Dirty:")
	errs[3], errs[4] = e3, e4
	r.anon, errs[5] = fieldKB(b, "Anonymous:")
	r.uss = clean + dirty
	return r, errors.Join(errs[:]...)
}

// hostMemory is what /proc/meminfo says of the host, in kB: MemAvailable, and the kernel's own
// allocations (Slab, PageTables, KernelStack), where a machine's namespaces, mounts, links and
// page tables are.
type hostMemory struct {
	available, kernel int64
}

func readHostMemory() (hostMemory, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return hostMemory{}, err
	}
	var m hostMemory
	var errs [4]error
	var slab, tables, stacks int64
	m.available, errs[0] = fieldKB(b, "MemAvailable:")
	slab, errs[1] = fieldKB(b, "Slab:")
	tables, errs[2] = fieldKB(b, "PageTables:")
	stacks, errs[3] = fieldKB(b, "KernelStack:")
	m.kernel = slab + tables + stacks
	return m, errors.Join(errs[:]...)
}

// fieldKB is the value of the line "name  N kB" of a /proc file.
func fieldKB(b []byte, name string) (int64, error) {
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s line", name)
}

// memoryFigure is the idle machines' memory.
type memoryFigure struct {
	perMachine map[string]rollup // summed over each machine's processes, by PID namespace
	processes  int               // machine processes found
	namespaces map[string]bool
	before     baseline // before the orders
	after      baseline // after the logins
}

// baseline is the host's memory and serve's own.
type baseline struct {
	host  hostMemory
	serve rollup
}

func readBaseline(servePID int) (baseline, error) {
	host, err := readHostMemory()
	if err != nil {
		return baseline{}, err
	}
	r, err := readRollup(servePID)
	return baseline{host: host, serve: r}, err
}

// idleMemory sums the memory of each machine's processes and compares the host with before.
func idleMemory(servePID int, before baseline) (memoryFigure, error) {
	hostNS, err := hostPidNS()
	if err != nil {
		return memoryFigure{}, err
	}
	all, err := processes()
	if err != nil {
		return memoryFigure{}, err
	}
	f := memoryFigure{perMachine: map[string]rollup{}, namespaces: map[string]bool{}, before: before}
	for ns, procs := range machineProcs(all, servePID, hostNS, nil) {
		f.namespaces[ns] = true
		for _, p := range procs {
			r, err := readRollup(p.pid)
			if err != nil {
				continue // ended since the list was read
			}
			f.perMachine[ns] = f.perMachine[ns].plus(r)
			f.processes++
		}
	}
	f.after, err = readBaseline(servePID)
	return f, err
}

// cpuFigure is the CPU the idle machines, and serve beside them, used over a window.
type cpuFigure struct {
	window        time.Duration
	machinesTicks int64
	serveTicks    int64
	busy          []busyProc // the machine processes that used any, most first
	// The kernel's scheduler statistics of every machine thread (/proc/<pid>/task/<tid>/schedstat):
	// the time on a CPU to the nanosecond, where utime and stime count whole ticks, and the
	// times a thread was given a CPU: what woke, and how often.
	machinesNS int64
	roles      map[string]*roleUse // by role: init, agent, other (what users left running)
}

// roleUse is what the machines' processes of one role used over the window.
type roleUse struct {
	processes int
	ns        int64 // on a CPU
	runs      int64 // times given a CPU (wake-ups)
	woke      int   // processes given a CPU at least once
}

// busyProc is a machine process that used CPU in the idle window.
type busyProc struct {
	pid   int
	ticks int64
	ns    int64
	runs  int64
	born  bool   // it started within the window (counted whole)
	comm  string // its command name
	role  string
}

// cpuUse is one machine process's CPU so far.
type cpuUse struct {
	ticks, ns, runs int64
	role            string
}

// idleCPU reads the machines' and serve's CPU use, waits window and reads them again. A
// machine process that ended in between is not counted (an idle machine starts none).
func idleCPU(servePID int, window time.Duration) (cpuFigure, error) {
	m0, s0, err := cpuUses(servePID)
	if err != nil {
		return cpuFigure{}, err
	}
	time.Sleep(window)
	m1, s1, err := cpuUses(servePID)
	if err != nil {
		return cpuFigure{}, err
	}
	f := cpuFigure{window: window, serveTicks: s1 - s0, roles: map[string]*roleUse{}}
	for pid, u := range m1 {
		before, seen := m0[pid] // a process born in the window counts whole
		d := cpuUse{ticks: u.ticks - before.ticks, ns: u.ns - before.ns, runs: u.runs - before.runs, role: u.role}
		f.machinesTicks += d.ticks
		f.machinesNS += d.ns
		r := f.roles[d.role]
		if r == nil {
			r = &roleUse{}
			f.roles[d.role] = r
		}
		r.processes++
		r.ns += d.ns
		r.runs += d.runs
		if d.runs > 0 {
			r.woke++
		}
		if d.ticks > 0 || d.runs > 0 {
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			f.busy = append(f.busy, busyProc{pid: pid, ticks: d.ticks, ns: d.ns, runs: d.runs, born: !seen,
				comm: strings.TrimSpace(string(comm)), role: d.role})
		}
	}
	slices.SortFunc(f.busy, func(a, b busyProc) int { return int(b.ns - a.ns) })
	return f, nil
}

// cpuUses is the CPU use of every machine process, by PID, and serve's utime + stime.
func cpuUses(servePID int) (map[int]cpuUse, int64, error) {
	hostNS, err := hostPidNS()
	if err != nil {
		return nil, 0, err
	}
	all, err := processes()
	if err != nil {
		return nil, 0, err
	}
	inits := map[int]bool{}
	for _, p := range all {
		if p.ppid == servePID {
			inits[p.pid] = true
		}
	}
	machines := map[int]cpuUse{}
	for _, procs := range machineProcs(all, servePID, hostNS, nil) {
		for _, p := range procs {
			role := "other"
			switch {
			case inits[p.pid]:
				role = "init"
			case inits[p.ppid]:
				role = "agent"
			}
			ns, runs := schedstat(p.pid)
			machines[p.pid] = cpuUse{ticks: p.ticks, ns: ns, runs: runs, role: role}
		}
	}
	self, ok := readProc(servePID)
	if !ok {
		return nil, 0, errors.New("serve's /proc entry is gone")
	}
	return machines, self.ticks, nil
}

// schedstat sums the scheduler's statistics over a process's threads: nanoseconds on a CPU and
// the times a thread was given one (0, 0 when unreadable: the process is gone).
func schedstat(pid int) (ns, runs int64) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		n, r, err := parseSchedstat(b)
		if err == nil {
			ns, runs = ns+n, runs+r
		}
	}
	return ns, runs
}

// parseSchedstat reads a schedstat line: time on a CPU (ns), time waiting for one (ns), and
// the times given one.
func parseSchedstat(b []byte) (ns, runs int64, err error) {
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return 0, 0, fmt.Errorf("schedstat: %d fields, want 3", len(f))
	}
	ns, err1 := strconv.ParseInt(f[0], 10, 64)
	runs, err2 := strconv.ParseInt(f[2], 10, 64)
	return ns, runs, errors.Join(err1, err2)
}

// absPath is path made absolute, for comparing with mountinfo and exe links.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
